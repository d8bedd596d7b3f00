/**
 * A step scorer from the learned step head: one teacher-forced pass of the generator over the
 * problem's prompt and the steps gives every token's log-probability; the head turns each step's
 * pooled surprise into P(step not wrong). One pass per solution, where the verifier asks once per step.
 */
import type { ChatMessage, GeneratedToken, ModelBackend } from '../model/types';
import type { StepScorer } from '../model/stepScorer';
import { stepHeadScore, type StepHead } from './stepHead';
import { joinSteps, stepFeatures, type StepFeatures } from './stepFeatures';
import { TokenJournal } from './tokenJournal';

export class LearnedStepScorer implements StepScorer {
  readonly info: StepScorer['info'];

  constructor(
    private readonly model: ModelBackend,
    private readonly head: StepHead,
    /** The prompt that asks the generator for a solution to `problem`. */
    private readonly promptOf: (problem: string) => ChatMessage[],
    private readonly journal?: TokenJournal,
  ) {
    if (head.model !== model.info.name)
      throw new Error(
        `the step head was fitted on ${head.model}, but the generator is ${model.info.name}: its scores would mean nothing.`,
      );
    // Its own kind, so that a panel or report can say the scores are the head's and how it measured.
    this.info = { kind: 'step-head', name: stepHeadName(head) };
  }

  /** A step scored below it is what the head calls wrong (chosen on its fit side). */
  get threshold(): number {
    return this.head.threshold;
  }

  async scoreSteps(problem: string, steps: readonly string[], options?: { signal?: AbortSignal }) {
    const features = await solutionStepFeatures(
      this.model,
      this.promptOf(problem),
      steps,
      this.journal,
      options?.signal,
    );
    return features.map((f) => stepHeadScore(this.head, f));
  }
}

/** "learned step head on M (held-out step AUROC 0.90, first error 68 %)": what it is, and how far to trust it. */
export function stepHeadName(head: StepHead): string {
  const h = head.heldOut;
  const measured = h
    ? `held-out step AUROC ${h.stepAuroc === null ? '—' : h.stepAuroc.toFixed(2)}, first error ${h.firstErrorAccuracy === null ? '—' : `${Math.round(h.firstErrorAccuracy * 100)} %`}, ${h.problems} problems`
    : 'not measured on held-out steps';
  return `learned step head on ${head.model} (${measured})`;
}

/** The steps' features, from the journal when this prompt and text were scored before. */
export async function solutionStepFeatures(
  model: ModelBackend,
  prompt: ChatMessage[],
  steps: readonly string[],
  journal?: TokenJournal,
  signal?: AbortSignal,
): Promise<StepFeatures[]> {
  return stepFeatures(await solutionTokens(model, prompt, steps, journal, signal), steps);
}

export async function solutionTokens(
  model: ModelBackend | undefined,
  prompt: ChatMessage[],
  steps: readonly string[],
  journal?: TokenJournal,
  signal?: AbortSignal,
): Promise<GeneratedToken[]> {
  const text = joinSteps(steps);
  const key = TokenJournal.keyOf(JSON.stringify(prompt), text);
  const kept = journal?.get(key);
  if (kept) return kept;
  if (!model) throw new Error('this solution was never scored and no model is open to score it.');
  if (!text) return [];
  const scored = await model.score(prompt, text, { signal });
  journal?.put(key, scored.tokens);
  return scored.tokens;
}
