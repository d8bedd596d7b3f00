/**
 * The one model interface every feature talks to. Backends: local ONNX (onnxruntime-node, run off
 * the caller's thread) and OpenAI-compatible HTTP. Nothing here imports vscode.
 */
import type { GenerateOptions, ModelInput } from './generateOptions';
import type { PlanRunner } from './plan';

export type {
  ChatMessage,
  ChatRole,
  GenerateOptions,
  ModelInput,
  RepetitionOptions,
  TokenEvent,
} from './generateOptions';
export { ModelError } from './modelError';

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
