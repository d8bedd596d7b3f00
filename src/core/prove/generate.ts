/**
 * The generator's answers for one round, constrained or free. Constrained, the answer is a plan:
 *
 *   "## Solution\n"                                                   forced
 *   <proof>                                                            free, maxTokens
 *   ["\n\nFinal answer: $\boxed" "{"<answer> "}$"]                   when the problem has an answer
 *   "\n\n## Self Evaluation\nHere is my evaluation of the solution:"   forced
 *   <analysis>                                                         free, selfEvalMaxTokens
 *   "\n\nBased on my evaluation, the final overall score should be: \boxed{"   forced
 *   0 | 0.5 | 1                                                        choice, with probabilities
 *   "}"                                                                forced
 *
 * so every answer has both sections and exactly one boxed self-score, and the self-score is a
 * distribution. A problem with a reference answer asks for a value, so its Solution also ends with
 * a boxed final answer by construction (what the prompt asks for, and what the answer check
 * reads); a problem to prove has none. Free, the answer is whatever the model writes, parsed
 * afterwards.
 */
import type { PlanCompletion, PlanSegment, SegmentResult } from '../model/plan';
import { segmentNamed } from '../model/plan';
import type { FinishReason, ModelBackend, ModelInput, TokenEvent } from '../model/types';
import { fromChoice } from './distribution';
import { OPENING_SENTENCE } from './parse';
import type { ScoreDistribution } from './runSchema';
import { ANALYSIS_STOPS, CLOSING_SENTENCE, scaleOptions } from './score';

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
  /** End the Solution with a boxed final answer (the problem has a reference answer). */
  finalAnswer: boolean;
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

// The answer ends at the box's closing brace (or the end of its math or line); the forced "}$"
// closes it, so a nested `\frac{1}{2}` keeps its own braces.
const ANSWER_STOPS = ['}$', '}\n', '$', '\n'];
const ANSWER_TOKENS = 48;
const FINAL_ANSWER_STOPS = ['Final answer:', 'Final Answer:', '**Final answer', '**Final Answer'];

/**
 * The Solution's closing "Final answer" line. The forced text stops before the brace, because "{\" is one
 * token in Qwen's vocabulary, so a forced lone "{" would tell the model its answer starts with no
 * LaTeX command, and it then writes digits ("1" for \frac{14}{3}). The model opens the brace itself.
 */
function finalAnswerSegments(): PlanSegment[] {
  return [
    { kind: 'text', text: `\n\n${FINAL_ANSWER_OPENING}` },
    { kind: 'free', name: 'answer', maxTokens: ANSWER_TOKENS, stop: ANSWER_STOPS },
    { kind: 'text', text: '}$' },
  ];
}

const FINAL_ANSWER_OPENING = 'Final answer: $\\boxed';

/** The Solution's closing line as a plan writes it, from the model's answer segment ("{…"). */
export function finalAnswerLine(answerSegment: string): string {
  return `${FINAL_ANSWER_OPENING}${answerSegment}}$`;
}

export function generatorPlan(
  maxTokens: number,
  selfEvalMaxTokens: number,
  finalAnswer = false,
): PlanSegment[] {
  return [
    { kind: 'text', text: '## Solution\n' },
    // The prompt asks for a closing "Final answer:" line; the plan writes its opening itself.
    {
      kind: 'free',
      name: 'proof',
      maxTokens,
      stop: finalAnswer ? [...PROOF_STOPS, ...FINAL_ANSWER_STOPS] : PROOF_STOPS,
    },
    ...(finalAnswer ? finalAnswerSegments() : []),
    // No space after the forced sentence: words carry their own leading space in the vocabulary,
    // and a forced lone space would push the model onto rarer space-less tokens.
    { kind: 'text', text: `\n\n## Self Evaluation\n${OPENING_SENTENCE}` },
    { kind: 'free', name: 'selfAnalysis', maxTokens: selfEvalMaxTokens, stop: [...ANALYSIS_STOPS, '\n## '] },
    { kind: 'text', text: `\n\n${CLOSING_SENTENCE} \\boxed{` },
    { kind: 'choice', name: 'selfScore', options: scaleOptions('unit') },
    { kind: 'text', text: '}' },
  ];
}

/**
 * The rest of a solution after its opening `prefix` (a run of whole steps): the prefix is forced
 * as the start of the Solution section and the model continues it until it would start its
 * self-evaluation (or, with `finalAnswer`, until its closing "Final answer" line, which the plan
 * then writes as the generator plan does). Automatic step labels sample these to see whether a
 * step can still lead to the reference answer.
 */
export function solutionContinuationPlan(
  prefix: string,
  maxTokens: number,
  finalAnswer = false,
): PlanSegment[] {
  return [
    { kind: 'text', text: prefix.trim() ? `## Solution\n${prefix.replace(/\s+$/, '')}\n` : '## Solution\n' },
    {
      kind: 'free',
      name: 'rest',
      maxTokens,
      stop: finalAnswer ? [...PROOF_STOPS, ...FINAL_ANSWER_STOPS] : PROOF_STOPS,
    },
    ...(finalAnswer ? finalAnswerSegments() : []),
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
      const plan = generatorPlan(r.maxTokens, r.selfEvalMaxTokens, r.finalAnswer);
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
