/**
 * Scoring through `/v1/completions` with `echo: true`: the server returns the prompt's own tokens
 * with their log-probabilities, and the continuation's share of them is the score. Pure functions
 * over the response JSON; they never throw on odd input but say what was missing.
 */

import type { GeneratedToken, ScoreResult } from '../types';

export interface EchoTokens {
  tokens: string[];
  logprobs: (number | null)[];
  /** Start of each token in the echoed text, in characters (code points, as Python servers count). */
  offsets: number[];
}

/** The echoed tokens from a completions response, or a reason why they are not there. */
export function readEchoTokens(response: unknown): EchoTokens | { missing: string } {
  const choice = (response as { choices?: unknown[] })?.choices?.[0] as { logprobs?: unknown } | undefined;
  const lp = choice?.logprobs as Record<string, unknown> | null | undefined;
  if (!lp) return { missing: 'the response has no logprobs' };
  const { tokens, token_logprobs: values, text_offset: offsets } = lp;
  if (!Array.isArray(tokens) || !Array.isArray(values))
    return { missing: 'logprobs.tokens/token_logprobs are absent' };
  if (!Array.isArray(offsets) || offsets.length !== tokens.length)
    return { missing: 'logprobs.text_offset is absent' };
  return {
    tokens: tokens.map((t) => (typeof t === 'string' ? t : '')),
    logprobs: values.map((v) => (typeof v === 'number' ? v : null)),
    offsets: offsets.map((o) => (typeof o === 'number' ? o : -1)),
  };
}

export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * The continuation's tokens: those that start inside it, plus a token that straddles the boundary
 * (BPE may merge the prompt's last characters with the continuation's first). Tokens after the
 * scored text (the one the server generated because max_tokens must be at least 1) are dropped.
 */
export function continuationScore(echo: EchoTokens, prompt: string, continuation: string): ScoreResult {
  const start = codePointLength(prompt);
  const end = start + codePointLength(continuation);
  const tokens: GeneratedToken[] = [];
  for (let i = 0; i < echo.tokens.length; i++) {
    const from = echo.offsets[i];
    const to = from + codePointLength(echo.tokens[i]);
    if (from < 0 || from >= end || to <= start) continue;
    tokens.push({ text: echo.tokens[i], logprob: echo.logprobs[i] });
  }
  const totalLogprob = tokens.reduce((sum, t) => sum + (t.logprob ?? 0), 0);
  return { tokens, totalLogprob };
}

/**
 * Whether echoed log-probabilities line up with generated ones: the greedy next token of `probe`
 * must get (nearly) the same log-probability when it is echoed as part of the prompt. Some servers
 * (llama-cpp-python for models without a BOS token) report each prompt token with the distribution
 * of the next position; their scores would be silently wrong. Undefined when the probe is inconclusive.
 */
export function echoAligned(probe: string, generated: { text: string; logprob: number }, echo: EchoTokens) {
  const at = codePointLength(probe);
  const i = echo.offsets.indexOf(at);
  if (i === -1 || echo.tokens[i] !== generated.text) return undefined;
  const echoed = echo.logprobs[i];
  if (echoed === null) return undefined;
  const tolerance = Math.max(0.1, 0.05 * Math.abs(generated.logprob));
  return Math.abs(echoed - generated.logprob) <= tolerance;
}
