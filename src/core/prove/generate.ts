/**
 * The generator's answers for one round, constrained or free. Constrained, the answer is a plan:
 *
 *   "## Solution\n"                                                   forced
 *   <proof>                                                            free, maxTokens
 *   "\n\n## Self Evaluation\nHere is my evaluation of the solution: "  forced
 *   <analysis>                                                         free, selfEvalMaxTokens
 *   "\n\nBased on my evaluation, the final overall score should be: \boxed{"   forced
 *   0 | 0.5 | 1                                                        choice, with probabilities
 *   "}"                                                                forced
 *
 * so every answer has both sections and exactly one boxed self-score, and the self-score is a
 * distribution. Free, the answer is whatever the model writes, parsed afterwards.
 */
import type { PlanCompletion, PlanSegment, SegmentResult } from '../model/plan';
import { segmentNamed } from '../model/plan';
import type { FinishReason, ModelBackend, ModelInput, TokenEvent } from '../model/types';
import { fromChoice } from './distribution';
import { OPENING_SENTENCE } from './parse';
import type { ScoreDistribution } from './runSchema';
import { CLOSING_SENTENCE, scaleOptions } from './score';

/** One generator answer, however it was produced. */
export interface GeneratedAnswer {
  text: string;
  finishReason: FinishReason;
  constrained: boolean;
  /** The self-score choice of a constrained answer; null for free text (it is parsed later). */
  selfScore: ScoreDistribution | null;
}

export interface GenerateRound {
  generator: ModelBackend;
  prompt: ModelInput;
  constrained: boolean;
  candidates: number;
  maxTokens: number;
  selfEvalMaxTokens: number;
  temperature: number;
  seed?: number;
  signal?: AbortSignal;
  onToken: (e: TokenEvent) => void;
}

// The proof ends where the model starts its own evaluation, whichever way it spells it. The
// earliest match wins, so "### Self Evaluation" is cut whole rather than leaving a stray "#".
const PROOF_STOPS = [
  ...['### ', '## ', '# ', '**'].flatMap((mark) =>
    ['Self Evaluation', 'Self-Evaluation', 'Self evaluation'].map((name) => mark + name),
  ),
  OPENING_SENTENCE,
];
const ANALYSIS_STOPS = ['\\boxed', CLOSING_SENTENCE, 'final overall score should be', '\n## '];

export function generatorPlan(maxTokens: number, selfEvalMaxTokens: number): PlanSegment[] {
  return [
    { kind: 'text', text: '## Solution\n' },
    { kind: 'free', name: 'proof', maxTokens, stop: PROOF_STOPS },
    { kind: 'text', text: `\n\n## Self Evaluation\n${OPENING_SENTENCE} ` },
    { kind: 'free', name: 'selfAnalysis', maxTokens: selfEvalMaxTokens, stop: ANALYSIS_STOPS },
    { kind: 'text', text: `\n\n${CLOSING_SENTENCE} \\boxed{` },
    { kind: 'choice', name: 'selfScore', options: scaleOptions('unit') },
    { kind: 'text', text: '}' },
  ];
}

/** How a plan's answer ended: cancelled, cut by a budget, or finished. */
export function planFinishReason(segments: readonly SegmentResult[]): FinishReason {
  const reasons = segments.map((s) => s.finishReason).filter((r): r is FinishReason => r !== undefined);
  if (reasons.includes('abort')) return 'abort';
  if (reasons.includes('length')) return 'length';
  return reasons[reasons.length - 1] ?? 'stop';
}

export function answerFromPlan(c: PlanCompletion): GeneratedAnswer {
  const choice = segmentNamed(c, 'selfScore');
  return {
    text: c.text,
    finishReason: planFinishReason(c.segments),
    constrained: true,
    selfScore: choice ? fromChoice(choice.distribution ?? [], choice.text, 'unit', choice.optionMass) : null,
  };
}

/**
 * The round's candidates, as one batch. Tokens are collected as they stream, so that a
 * cancellation that rejects the call still keeps the text written so far (returned with finish
 * reason "abort"; the error is rethrown when nothing was written).
 */
export async function generateAnswers(
  r: GenerateRound,
): Promise<{ answers: GeneratedAnswer[]; timeToFirstTokenMs: number; aborted: unknown }> {
  const streamed: string[] = Array.from({ length: r.candidates }, () => '');
  const onToken = (e: TokenEvent) => {
    if (e.sequence < streamed.length) streamed[e.sequence] += e.text;
    r.onToken(e);
  };
  const sampling = { n: r.candidates, temperature: r.temperature, seed: r.seed, signal: r.signal, onToken };
  try {
    if (r.constrained) {
      const plan = generatorPlan(r.maxTokens, r.selfEvalMaxTokens);
      const result = await r.generator.generatePlan(r.prompt, plan, sampling);
      return {
        answers: result.completions.map(answerFromPlan),
        timeToFirstTokenMs: result.timeToFirstTokenMs,
        aborted: null,
      };
    }
    // Nothing reads the generator's log-probabilities, and some servers are much slower with them.
    const result = await r.generator.generate(r.prompt, {
      ...sampling,
      maxTokens: r.maxTokens,
      logprobs: false,
    });
    return {
      answers: result.completions.map((c) => ({
        text: c.text,
        finishReason: c.finishReason,
        constrained: false,
        selfScore: null,
      })),
      timeToFirstTokenMs: result.timeToFirstTokenMs,
      aborted: null,
    };
  } catch (err) {
    const partial = streamed
      .filter((t) => t !== '')
      .map((text) => ({ text, finishReason: 'abort' as const, constrained: r.constrained, selfScore: null }));
    if (partial.length === 0 || !r.signal?.aborted) throw err;
    return { answers: partial, timeToFirstTokenMs: 0, aborted: err };
  }
}
