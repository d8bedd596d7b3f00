/**
 * How sure the generator was of a proof's own tokens: pooled statistics of the per-token
 * log-probabilities of the proof under the model that wrote it, read by one scoring pass (prompt +
 * proof, no sampling). The learned scorer (learnedScorer.ts) is a head over these numbers.
 *
 * Why token log-probabilities and not hidden states: every backend already returns them
 * (`ModelBackend.score`), so the head needs no change to the ONNX graphs, works on any proof text
 * (a user's too, not only sampled ones) and is scored again after the fact from a journal's texts.
 */
import type { ChatMessage, GeneratedToken, ModelBackend } from '../model/types';

export const CONFIDENCE_FEATURES = [
  /** Mean log-probability of the proof's tokens. */
  'meanLogprob',
  /** The 10th percentile: how bad the worst stretch of tokens was. */
  'lowLogprob',
  /** Share of tokens the model gave less than even odds. */
  'unsureShare',
  /** Mean over the last quarter of the tokens, where the conclusion is. */
  'tailLogprob',
  /** Mean and minimum over the final boxed answer's tokens (the last 8 tokens without one). */
  'answerLogprob',
  'answerMinLogprob',
  /** ln(1 + tokens): long proofs of a small model ramble more often. */
  'logTokens',
] as const;
export type ConfidenceName = (typeof CONFIDENCE_FEATURES)[number];
export type Confidence = Record<ConfidenceName, number>;

/** A token the model found nearly impossible says no more than one it found very unlikely. */
const FLOOR = -20;

/** A token's log-probability held to the floor, or null when the backend gave none. */
export function flooredLogprob(token: GeneratedToken): number | null {
  return token.logprob === null || !Number.isFinite(token.logprob) ? null : Math.max(FLOOR, token.logprob);
}

/** The 10th percentile of log-probabilities sorted ascending (0 when there are none). */
export function lowQuantile(sorted: readonly number[]): number {
  return sorted.length ? sorted[Math.floor(0.1 * (sorted.length - 1))] : 0;
}
const FALLBACK_ANSWER_TOKENS = 8;

/** Pools the tokens' log-probabilities; tokens without one (a backend that gave none) are left out. */
export function confidenceOf(tokens: readonly GeneratedToken[]): Confidence {
  const text = tokens.map((t) => t.text).join('');
  const span = answerSpan(text);
  const lps: number[] = [];
  const inAnswer: number[] = [];
  let offset = 0;
  for (const t of tokens) {
    const start = offset;
    offset += t.text.length;
    const lp = flooredLogprob(t);
    if (lp === null) continue;
    lps.push(lp);
    if (span && offset > span.start && start < span.end) inAnswer.push(lp);
  }
  const answer = span ? inAnswer : lps.slice(-FALLBACK_ANSWER_TOKENS);
  const sorted = [...lps].sort((a, b) => a - b);
  return {
    meanLogprob: mean(lps),
    lowLogprob: lowQuantile(sorted),
    unsureShare: lps.length ? lps.filter((lp) => lp < Math.log(0.5)).length / lps.length : 0,
    tailLogprob: mean(lps.slice(Math.floor(lps.length * 0.75))),
    answerLogprob: mean(answer),
    answerMinLogprob: answer.length ? Math.min(...answer) : 0,
    logTokens: Math.log1p(lps.length),
  };
}

/** Where the content of the last `\boxed{…}` lies in the text (to its closing brace or the end). */
export function answerSpan(text: string): { start: number; end: number } | null {
  const at = text.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  const start = at + '\\boxed{'.length;
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return { start, end: i };
  }
  return { start, end: text.length };
}

/** The mean, 0 for none. */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

/** One scoring pass of the proof as the model's answer to `prompt` (the prompt that asked for it). */
export async function proofConfidence(
  model: ModelBackend,
  prompt: ChatMessage[],
  proof: string,
  signal?: AbortSignal,
): Promise<Confidence> {
  // Nothing to score: the pooled figures of no tokens, not a call some backends refuse.
  if (!proof) return confidenceOf([]);
  const scored = await model.score(prompt, proof, { signal });
  return confidenceOf(scored.tokens);
}
