/**
 * The loop's first two phases, per problem: sample solutions from the generator, then label their
 * steps automatically. Both are journaled item by item (the evaluation journal), so a killed loop
 * resumes where it stopped; labels go to a label store and never replace a person's.
 */
import { createHash } from 'node:crypto';
import { answersEquivalent, finalBoxedAnswer } from '../math/answers';
import type { MathProblem } from '../eval/datasets';
import { completionLabels, type StepEstimate, type StepSearch } from '../autoLabels/completion';
import { modelContinuationProbe } from '../autoLabels/modelProbe';
import type { LabelStore, NewLabel } from '../labels/store';
import type { ModelBackend } from '../model/types';
import { answerFromPlan, finalAnswerLine, generatorPlan } from '../prove/generate';
import { loadPrompt, renderPrompt } from '../prove/prompts';
import { splitSteps, type Step } from '../steps/split';

export interface SampledSolution {
  solutionId: string;
  text: string;
  finalAnswer: string | null;
  correct: boolean;
  finishReason: string;
  /** The generator's own expected score of the solution (its constrained self-evaluation). */
  selfScore: number | null;
}

/**
 * How the loop's solutions are written, recorded in its journals so that a change of plan starts
 * them over: Prove's generator plan, with a boxed final answer and the self-evaluation.
 */
export const SAMPLING_PLAN = 'solution, final answer, self-evaluation';

/**
 * The loop's own generation lengths, shorter than Prove's (DEFAULT_MAX_OUTPUT_TOKENS = 512, and 256
 * for the self-evaluation) on purpose. The loop samples several solutions of every training and
 * held-out problem, then probes each step with more samples, so on a CPU these lengths set the run's
 * length; and the sample journals record them in their fingerprint, so changing them starts every
 * loop folder's sampling over (the shipped runs in bench/runs/loop-prm-cpu* were sampled with these).
 */
export const LOOP_SAMPLING_LENGTHS = { maxTokens: 384, selfEvalMaxTokens: 96 } as const;

export interface SamplingSettings {
  solutionsPerProblem: number;
  maxTokens: number;
  selfEvalMaxTokens: number;
  temperature: number;
  seed: number;
  promptDir?: string;
}

/** Stable id of a sampled solution: the same text of the same problem is the same solution. */
export function autoSolutionId(problemId: string, text: string): string {
  return `auto-${createHash('sha256').update(`${problemId}\n${text}`).digest('hex').slice(0, 16)}`;
}

/**
 * Samples solutions of one problem in one batch, as Prove writes them: a Solution closed by a
 * boxed final answer, then the self-evaluation, whose constrained score is kept for best-of-N.
 */
export async function sampleSolutions(
  generator: ModelBackend,
  problem: MathProblem,
  s: SamplingSettings,
  signal?: AbortSignal,
): Promise<SampledSolution[]> {
  const prompt = renderPrompt(loadPrompt('generator', s.promptDir), { problem: problem.problem });
  const result = await generator.generatePlan(
    [{ role: 'user', content: prompt }],
    generatorPlan(s.maxTokens, s.selfEvalMaxTokens, true),
    { n: s.solutionsPerProblem, temperature: s.temperature, seed: s.seed, signal },
  );
  return result.completions.map((c) => {
    const proof = (c.segments.find((seg) => seg.name === 'proof')?.text ?? '').trim();
    const answer = c.segments.find((seg) => seg.name === 'answer')?.text ?? '';
    const text = proof ? `${proof}\n\n${finalAnswerLine(answer)}` : '';
    const finalAnswer = text ? finalBoxedAnswer(text) : null;
    const generated = answerFromPlan(c);
    return {
      solutionId: autoSolutionId(problem.id, text),
      text,
      finalAnswer,
      correct: finalAnswer !== null && answersEquivalent(finalAnswer, problem.answer),
      finishReason: generated.finishReason,
      selfScore: generated.selfScore?.expected ?? null,
    };
  });
}

/**
 * What to do with the wrong solutions of a problem that none of its samples solved. Completion
 * probes on such a problem mostly measure the generator, not the step: with a generator that
 * solves a problem one time in seven, 4 continuations from a sound step all miss about half the
 * time, and the label "the first step already fails" says only that the problem is hard. `skip`
 * leaves those problems out, as OmegaPRM drops problems whose rollouts all fail; `label` probes
 * them as Math-Shepherd's hard estimation does.
 */
export type UnsolvedPolicy = 'skip' | 'label';

export interface LabellingSettings {
  samplesPerStep: number;
  unsolved: UnsolvedPolicy;
  search: StepSearch;
  maxTokens: number;
  temperature: number;
  seed: number;
  promptDir?: string;
}

/** A step label's rating and evidence as the label journal records it; `restored`: rebuilt from counts. */
export type RecordedEstimate = Pick<StepEstimate, 'rating' | 'samples' | 'successes'> & {
  evidence: StepEstimate['evidence'] | 'restored';
};

export interface LabelledSolutionSummary {
  solutionId: string;
  steps: number;
  labelled: number;
  negative: number;
  /** Continuations sampled to find the labels. */
  probes: number;
  /**
   * Each labelled step's rating and evidence, in step order: with the sampled solution and the
   * problem, enough to restore the labels when the store is lost (journals older than this field
   * have only the counts, which still fix the ratings: see `restoredLabels`).
   */
  estimates?: RecordedEstimate[];
}

/**
 * Labels the steps of one sampled solution by completion and appends the labels to `store`
 * (source `auto-completion`, with the evidence in `meta`). A solution without steps gets none.
 */
export async function labelSolution(
  generator: ModelBackend,
  store: LabelStore,
  problem: MathProblem,
  solution: SampledSolution,
  s: LabellingSettings,
  signal?: AbortSignal,
): Promise<LabelledSolutionSummary> {
  const steps = splitSteps(solution.text);
  const probe = modelContinuationProbe({
    generator,
    problem: problem.problem,
    referenceAnswer: problem.answer,
    maxTokens: s.maxTokens,
    temperature: s.temperature,
    seed: s.seed,
    promptDir: s.promptDir,
    signal,
  });
  const estimates = await completionLabels(
    {
      text: solution.text,
      steps: steps.map((st) => ({ text: st.text, end: st.end })),
      finalAnswerCorrect: solution.correct,
    },
    probe,
    { samplesPerStep: s.samplesPerStep, search: s.search, signal },
  );
  const recorded = estimates.map(({ rating, evidence, samples, successes }) => ({
    rating,
    evidence,
    samples,
    successes,
  }));
  for (const label of completionLabelRecords(problem, solution, steps, recorded, s, generator.info.name))
    await store.append(label);
  return {
    solutionId: solution.solutionId,
    steps: steps.length,
    labelled: estimates.length,
    negative: estimates.filter((e) => e.rating === -1).length,
    probes: estimates.filter((e) => e.evidence === 'sampled').length,
    estimates: recorded,
  };
}

/** The store records of one solution's completion labels, step i from `estimates[i]`. */
function completionLabelRecords(
  problem: MathProblem,
  solution: SampledSolution,
  steps: readonly Step[],
  estimates: RecordedEstimate[],
  s: LabellingSettings,
  labeller: string,
  restored = false,
): NewLabel[] {
  return estimates.map((e, index) => ({
    problemId: problem.id,
    problemText: index === 0 ? problem.problem : undefined,
    solutionId: solution.solutionId,
    stepIndex: index,
    stepHash: steps[index].hash,
    stepText: steps[index].text,
    rating: e.rating,
    source: 'auto-completion',
    labeller,
    meta: {
      evidence: e.evidence,
      ...(e.evidence === 'restored' ? {} : { samples: e.samples, successes: e.successes }),
      search: s.search,
      referenceAnswer: problem.answer,
      ...(restored ? { restoredFrom: 'label journal' } : {}),
    },
  }));
}

/**
 * A solution's completion labels rebuilt from its label journal entry, for a store that was lost
 * (the stores hold problem text and stay out of git, the journals do not). Both searches label
 * steps 0..k, every one positive but the last, which is negative when the solution has an error;
 * so the counts fix the ratings even where a journal predates `estimates`, though not how many
 * continuations succeeded (those labels say `restored`). Null when the solution no longer splits
 * into the steps the journal counted.
 */
export function restoredLabels(
  problem: MathProblem,
  solution: SampledSolution,
  summary: LabelledSolutionSummary,
  s: LabellingSettings,
  labeller: string,
): NewLabel[] | null {
  const steps = splitSteps(solution.text);
  if (steps.length !== summary.steps || summary.labelled > steps.length || summary.negative > 1) return null;
  const estimates =
    summary.estimates ??
    Array.from({ length: summary.labelled }, (_, i) => ({
      rating: i === summary.labelled - 1 && summary.negative === 1 ? (-1 as const) : (1 as const),
      evidence: 'restored' as const,
      samples: 0,
      successes: 0,
    }));
  if (estimates.length !== summary.labelled) return null;
  return completionLabelRecords(problem, solution, steps, estimates, s, labeller, true);
}
