/**
 * Verifier-based step labels: the verifier model judges each step k times, each pass writing a
 * short check of the step before a verdict chosen between "+" and "-" (sampled from the model's
 * probability of each, so passes can disagree). A step gets a label only when all k verdicts agree;
 * a split vote is no evidence and the step stays unlabelled. Labelling stops at the first step the
 * passes unanimously reject: what follows a wrong step says nothing about the chain.
 */
import type { PlanSegment } from '../model/plan';
import type { ModelBackend } from '../model/types';
import { renderPrompt, type PromptTemplate } from '../prove/prompts';

export interface VerifierLabelOptions {
  /** Judgments of each step (k); a label needs all of them to agree. */
  passes: number;
  /** Token budget of each pass's check of the step, written before its verdict. */
  checkTokens: number;
  /** Sampling temperature of the passes; above 0 so that they are independent draws. */
  temperature: number;
  seed?: number;
  signal?: AbortSignal;
}

export interface StepVerdicts {
  index: number;
  text: string;
  /** The verdict of each pass: +1 for "+", −1 for "-". */
  votes: (1 | -1)[];
  /** The unanimous verdict, or null when the passes disagree. */
  rating: 1 | -1 | null;
  /** Mean probability of "+" over the passes (for display; labels use the votes). */
  meanPositive: number;
}

export const VERDICT_OPTIONS = ['+', '-'] as const;

export function verdictPlan(checkTokens: number): PlanSegment[] {
  return [
    { kind: 'free', name: 'check', maxTokens: checkTokens, stop: ['Verdict:', '\n\n'] },
    { kind: 'text', text: '\nVerdict: ' },
    { kind: 'choice', name: 'verdict', options: [...VERDICT_OPTIONS] },
  ];
}

export async function verifierLabels(
  verifier: ModelBackend,
  template: PromptTemplate,
  problem: string,
  steps: readonly string[],
  options: VerifierLabelOptions,
): Promise<StepVerdicts[]> {
  if (!Number.isInteger(options.passes) || options.passes < 1)
    throw new RangeError(`passes must be a positive integer (got ${options.passes}).`);
  if (!(options.temperature > 0))
    throw new RangeError('The passes must be sampled (temperature above 0) to be independent judgments.');
  const out: StepVerdicts[] = [];
  for (let i = 0; i < steps.length; i++) {
    options.signal?.throwIfAborted();
    const content = renderPrompt(template, {
      problem,
      previousSteps: i === 0 ? '(this is the first step)' : steps.slice(0, i).join('\n'),
      step: steps[i],
    });
    const result = await verifier.generatePlan(
      [{ role: 'user', content }],
      verdictPlan(options.checkTokens),
      {
        n: options.passes,
        temperature: options.temperature,
        seed: options.seed === undefined ? undefined : options.seed + i,
        signal: options.signal,
      },
    );
    const votes: (1 | -1)[] = [];
    let positive = 0;
    for (const completion of result.completions) {
      const verdict = completion.segments.find((s) => s.name === 'verdict');
      votes.push(verdict?.text === '+' ? 1 : -1);
      positive += verdict?.distribution?.find((d) => d.option === '+')?.probability ?? 0;
    }
    const unanimous = votes.every((v) => v === votes[0]) ? votes[0] : null;
    out.push({
      index: i,
      text: steps[i],
      votes,
      rating: unanimous,
      meanPositive: positive / Math.max(1, votes.length),
    });
    if (unanimous === -1) break;
  }
  return out;
}
