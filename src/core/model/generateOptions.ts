/**
 * What a caller gives a model: the input (a prompt or chat messages) and the generation options.
 * Apart from types.ts so that plans (plan.ts), which the backend interface extends, can name them
 * without a loop.
 */
export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** A raw prompt string (no chat template applied) or chat messages (the model's own template applied). */
export type ModelInput = string | ChatMessage[];

export interface TokenEvent {
  /** Which of the `n` samples this token belongs to (0-based). */
  sequence: number;
  /** Decoded text this token added (may be empty for partial UTF-8). */
  text: string;
  tokenId?: number;
  /** Natural-log probability of the sampled token under the (unwarped) model distribution. */
  logprob?: number;
  /** Plans only: the index of the plan segment this text belongs to (forced text is streamed too). */
  segment?: number;
}

/**
 * Repetition control, applied to the tokens a call generates (not to the prompt, which a model
 * may legitimately quote). Defaults: `DEFAULT_REPETITION` in repetition.ts, the one place they live.
 */
export interface RepetitionOptions {
  /**
   * CTRL-style penalty: the logit of a token generated within the last `penaltyWindow` tokens is
   * divided by it (multiplied when negative). 1 turns it off.
   */
  penalty?: number;
  penaltyWindow?: number;
  /** A token that would repeat an n-gram of this many tokens already generated is never chosen. 0 turns it off. */
  noRepeatNgram?: number;
}

export interface GenerateOptions {
  maxTokens?: number;
  /** EOS is not sampled before this many tokens (benchmarks use it to get equal lengths). */
  minTokens?: number;
  /** 0 means greedy. */
  temperature?: number;
  topP?: number;
  topK?: number;
  /** Number of samples, generated as one batch where the backend can. */
  n?: number;
  /** Makes sampling repeatable for the same model, input and options. */
  seed?: number;
  /** Generation of a sequence stops when its text ends with one of these; the stop text is not returned. */
  stop?: string[];
  signal?: AbortSignal;
  /**
   * Return per-token log-probabilities. The ONNX engine computes them for free and returns them
   * unless this is false; endpoints return them only when this is true (asking costs servers
   * such as llama-cpp-python several times the decoding time), so ask only where one is read.
   */
  logprobs?: boolean;
  /** Repetition control; omitted fields take `DEFAULT_REPETITION`. */
  repetition?: RepetitionOptions;
  /** Called for every generated token, as it is produced. */
  onToken?: (event: TokenEvent) => void;
}
