/**
 * What a plan means, whichever backend runs it: segments run in order, each seeing the text the
 * ones before it wrote; a choice is scored together with a trailing space and, where one option is
 * the start of another, the first character of the forced text after it; the option taken is the
 * most probable at temperature 0, else drawn from the renormalised distribution. The backends
 * (onnx/planRunner.ts, openai/planRunner.ts) differ only in how they score and generate.
 */
import type { AssertionAutomaton } from './assertionLines';
import type { AssertionLines, Choice, ForcedText, FreeText, PlanSegment, SegmentResult } from './plan';
import type { SeededRandom } from './sampling';

/** How one backend runs each kind of segment (`i` is the segment's index, for streamed text). */
export interface SegmentRunners {
  text(i: number, s: ForcedText): SegmentResult;
  free(i: number, s: FreeText): Promise<SegmentResult>;
  choice(i: number, s: Choice, next: PlanSegment | undefined): Promise<SegmentResult>;
  assertions(i: number, s: AssertionLines): Promise<SegmentResult>;
  /** Called with each segment's text once it is written, before the next segment runs. */
  wrote(text: string): void;
}

/** Runs the segments in order; returns their results. */
export async function interpretPlan(plan: PlanSegment[], run: SegmentRunners): Promise<SegmentResult[]> {
  const results: SegmentResult[] = [];
  for (let i = 0; i < plan.length; i++) {
    const s = plan[i];
    const result =
      s.kind === 'text'
        ? run.text(i, s)
        : s.kind === 'free'
          ? await run.free(i, s)
          : s.kind === 'choice'
            ? await run.choice(i, s, plan[i + 1])
            : await run.assertions(i, s);
    results.push(result);
    run.wrote(result.text);
  }
  return results;
}

/**
 * What follows each option when it is scored: the first character of the next forced text where
 * one option starts another ("1" and "10" compete as "1}" and "10}"), else nothing.
 */
export function choiceTerminator(s: Choice, next: PlanSegment | undefined): string {
  const follow = next?.kind === 'text' ? next.text : '';
  const ambiguous = s.options.some((a) => s.options.some((b) => b !== a && b.startsWith(a)));
  return ambiguous && follow ? follow[0] : '';
}

/** Greedy (temperature 0): the most probable option; sampling: one drawn from `probabilities`. */
export function pickOption(probabilities: number[], temperature: number, random: SeededRandom): number {
  let best = 0;
  for (let k = 1; k < probabilities.length; k++) if (probabilities[k] > probabilities[best]) best = k;
  if (!(temperature > 0)) return best;
  let u = random.next();
  for (let k = 0; k < probabilities.length; k++) {
    u -= probabilities[k];
    if (u < 0) return k;
  }
  return best;
}

/** A choice's result: the option taken, every option's probability, and their mass before renormalising. */
export function choiceResult(
  s: Choice,
  chosen: number,
  probabilities: number[],
  optionMass: number,
): SegmentResult {
  return {
    kind: 'choice',
    name: s.name,
    text: s.options[chosen],
    distribution: s.options.map((option, k) => ({ option, probability: probabilities[k] })),
    optionMass,
  };
}

/** An assertion segment's result: the lines the grammar admitted, how many it left out, and why it ended. */
export function assertionsResult(
  s: AssertionLines,
  auto: AssertionAutomaton,
  dropped: number,
  finishReason: SegmentResult['finishReason'],
): SegmentResult {
  return { kind: 'assertions', name: s.name, text: auto.text, lines: auto.lines, dropped, finishReason };
}
