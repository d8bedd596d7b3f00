/**
 * The one model interface every feature talks to. Backends: local ONNX (onnxruntime-node, run off
 * the caller's thread) and OpenAI-compatible HTTP. Nothing here imports vscode.
 */
import type { PlanRunner } from './plan';

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

export interface GeneratedToken {
  id?: number;
  text: string;
  logprob: number | null;
}

export type FinishReason = 'stop' | 'length' | 'abort' | 'eos';

export interface Completion {
  /** The answer text; a reasoning model's `<think>…</think>` block is not part of it. */
  text: string;
  tokens: GeneratedToken[];
  finishReason: FinishReason;
  /** What a reasoning model wrote inside `<think>…</think>`, kept apart from the answer. */
  reasoning?: string;
}

export interface GenerateResult {
  completions: Completion[];
  promptTokens: number;
  /** Prompt tokens read from a cache the backend kept from an earlier request, where it says. */
  cachedPromptTokens?: number;
  /** Milliseconds from the call to the first generated token, and the whole call. */
  timeToFirstTokenMs: number;
  totalMs: number;
}

export interface ScoreResult {
  /** The continuation's tokens with their log-probabilities given the prompt and the tokens before. */
  tokens: GeneratedToken[];
  totalLogprob: number;
}

export type ModelDevice = 'cpu' | 'cuda' | 'remote';

export interface ModelInfo {
  backend: 'onnx' | 'openai';
  /** A human-readable model name (folder name or served model id). */
  name: string;
  device: ModelDevice;
  contextWindow: number;
}

/**
 * Every backend can also run generation plans (plan.ts): `planSupport()` says whether and how it
 * constrains them; where it says `none`, callers generate freely and parse, as before plans.
 */
export interface ModelBackend extends PlanRunner {
  readonly info: ModelInfo;
  generate(input: ModelInput, options?: GenerateOptions): Promise<GenerateResult>;
  /** Log-probabilities of `continuation` given `prompt`, without sampling. */
  score(prompt: ModelInput, continuation: string, options?: { signal?: AbortSignal }): Promise<ScoreResult>;
  dispose(): Promise<void>;
}

/** Errors a person can act on: `message` says what happened, `hint` what to do about it. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly code:
      | 'model-folder'
      | 'model-shape'
      | 'load'
      | 'aborted'
      | 'endpoint-auth'
      | 'endpoint-not-found'
      | 'endpoint-rate-limit'
      | 'endpoint-server'
      | 'endpoint-unreachable'
      | 'endpoint-malformed'
      | 'endpoint-unsupported'
      | 'context-overflow'
      | 'download-integrity'
      | 'internal',
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
