/**
 * Context-window accounting. Small local windows break long prompts silently (llama-cpp-python cuts
 * max_tokens to what is left, Ollama drops the start of the prompt), so prompts are measured before
 * they are sent: exactly where the caller or the server can count tokens, by an estimate otherwise.
 */

import type { ModelInput } from '../types';
import { contextOverflowError } from './errors';

/** Template tokens a chat template adds around each message (role markers, separators). */
export const CHAT_TOKENS_PER_MESSAGE = 6;
/** Fewest output tokens a generation is allowed to shrink to before the call is refused. */
export const MIN_OUTPUT_TOKENS = 16;

export function inputText(input: ModelInput): string {
  return typeof input === 'string' ? input : input.map((m) => `${m.role}\n${m.content}`).join('\n');
}

/**
 * Rough token count: about four bytes of English per token for BPE vocabularies; code and
 * non-Latin text run denser, so this is used only where no exact count is available.
 */
export function estimateTokens(input: ModelInput): number {
  const bytes = Buffer.byteLength(inputText(input), 'utf8');
  const overhead = typeof input === 'string' ? 0 : input.length * CHAT_TOKENS_PER_MESSAGE + 2;
  return Math.ceil(bytes / 4) + overhead;
}

export interface ContextPlan {
  maxTokens: number;
  /** Set when the output budget had to be cut to fit the window. */
  warning?: string;
}

/**
 * Checks that the prompt leaves room for output. Throws ModelError('context-overflow') when it does
 * not; shrinks maxTokens with a warning when only the requested output does not fit.
 */
export function planContext(
  promptTokens: number,
  requestedMaxTokens: number,
  contextWindow: number,
  exact: boolean,
): ContextPlan {
  const about = exact ? '' : 'about ';
  const room = contextWindow - promptTokens;
  if (room < Math.min(MIN_OUTPUT_TOKENS, requestedMaxTokens)) {
    throw contextOverflowError(
      `the prompt takes ${about}${promptTokens} tokens, leaving ${Math.max(room, 0)} for the answer.`,
      contextWindow,
    );
  }
  if (promptTokens + requestedMaxTokens <= contextWindow) return { maxTokens: requestedMaxTokens };
  return {
    maxTokens: room,
    warning: `The prompt takes ${about}${promptTokens} of the ${contextWindow} context tokens, so the answer is limited to ${room} tokens instead of ${requestedMaxTokens}.`,
  };
}
