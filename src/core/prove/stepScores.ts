import type { ChatMessage, ModelBackend } from '../model/types';
import type { StepScorer } from '../model/stepScorer';
import { renderPrompt, type PromptTemplate } from './prompts';

export type StepAggregate = 'product' | 'min';

/**
 * A step probability held to [0, 1]; NaN or a missing value reads as ½. A PRM plugged in later is
 * untrusted output: a bad value must neither break a run nor decide a choice.
 */
export function clampStepProbability(x: number | undefined): number {
  return typeof x === 'number' && Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0.5;
}

/**
 * The solution score from step probabilities: the product is the probability that every step is
 * correct (steps taken as independent); the minimum is the weakest step. No steps: null.
 */
export function aggregateStepScores(scores: readonly number[], how: StepAggregate): number | null {
  if (scores.length === 0) return null;
  return how === 'min' ? Math.min(...scores) : scores.reduce((a, b) => a * b, 1);
}

/** The answer tokens of the step-judge prompt whose likelihoods are compared. */
export const POSITIVE_JUDGMENT = '+';
export const NEGATIVE_JUDGMENT = '-';

/**
 * P(correct) = P(+) / (P(+) + P(−)) after the step-judge prompt: the model's preference between
 * the two judgments, normalised so that the rest of the vocabulary does not matter.
 */
export function judgmentProbability(logprobPositive: number, logprobNegative: number): number {
  if (!Number.isFinite(logprobPositive) && !Number.isFinite(logprobNegative)) return 0.5;
  if (!Number.isFinite(logprobPositive)) return 0;
  if (!Number.isFinite(logprobNegative)) return 1;
  return 1 / (1 + Math.exp(logprobNegative - logprobPositive));
}

/** Scores steps with the verifier model's log-probabilities of "+" and "−" after each step. */
export class VerifierStepScorer implements StepScorer {
  readonly info: StepScorer['info'];

  constructor(
    private readonly backend: ModelBackend,
    private readonly template: PromptTemplate,
  ) {
    this.info = { kind: 'verifier-logprob', name: backend.info.name };
  }

  async scoreSteps(
    problem: string,
    steps: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<number[]> {
    const scores: number[] = [];
    // The local engine reads both judgments from one pass over the prompt (a choice between them);
    // elsewhere each judgment is scored on its own, which reads the prompt twice.
    const onePass = (await this.backend.planSupport()).mode === 'native';
    for (let i = 0; i < steps.length; i++) {
      const content = renderPrompt(this.template, {
        problem,
        previousSteps: i === 0 ? '(this is the first step)' : steps.slice(0, i).join('\n\n'),
        step: steps[i],
      });
      const prompt = [{ role: 'user' as const, content }];
      if (onePass) {
        scores.push(await this.choiceProbability(prompt, options.signal));
        continue;
      }
      const positive = await this.backend.score(prompt, POSITIVE_JUDGMENT, options);
      const negative = await this.backend.score(prompt, NEGATIVE_JUDGMENT, options);
      scores.push(judgmentProbability(positive.totalLogprob, negative.totalLogprob));
    }
    return scores;
  }

  /** P(+) / (P(+) + P(−)): the choice renormalises over its two options, as judgmentProbability does. */
  private async choiceProbability(prompt: ChatMessage[], signal?: AbortSignal): Promise<number> {
    const result = await this.backend.generatePlan(
      prompt,
      [{ kind: 'choice', name: 'judgment', options: [POSITIVE_JUDGMENT, NEGATIVE_JUDGMENT] }],
      { temperature: 0, signal },
    );
    const distribution = result.completions[0]?.segments[0]?.distribution ?? [];
    return distribution.find((d) => d.option === POSITIVE_JUDGMENT)?.probability ?? 0.5;
  }
}
