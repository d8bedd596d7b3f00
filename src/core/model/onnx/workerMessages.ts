/**
 * The messages between OnnxBackend (caller's thread) and the model worker. Every request
 * carries an id; the worker answers it with exactly one `result` or `error` (after any number of
 * `token` messages). Cancellation: the request's shared abort flag, which the worker polls before
 * every forward pass even while its event loop is busy, and an `abort` message that sets it too.
 */
import type { PlanSegment } from '../plan';
import type { ModelInput, ScoreResult, TokenEvent } from '../types';
import type { EngineGenerateOptions, EngineGenerateResult, EngineLoadOptions } from './engine';
import type { EnginePlanOptions, EnginePlanResult } from './planRunner';
import type { PrmInfo, PrmLoadOptions } from './prmEngine';

export interface LoadedInfo {
  name: string;
  device: 'cpu' | 'cuda';
  contextWindow: number;
}

export type WorkerRequest =
  | { type: 'load'; id: number; options: EngineLoadOptions }
  | {
      type: 'generate';
      id: number;
      input: ModelInput;
      options: EngineGenerateOptions;
      /** Int32Array(1) over a SharedArrayBuffer; 1 means abort. */
      abortFlag: SharedArrayBuffer;
    }
  | {
      type: 'generatePlan';
      id: number;
      input: ModelInput;
      plan: PlanSegment[];
      options: EnginePlanOptions;
      abortFlag: SharedArrayBuffer;
    }
  | { type: 'score'; id: number; prompt: ModelInput; continuation: string; abortFlag: SharedArrayBuffer }
  /** A process reward model, held beside (not instead of) a generator. */
  | { type: 'loadPrm'; id: number; options: PrmLoadOptions }
  | { type: 'scoreSteps'; id: number; problem: string; steps: string[]; abortFlag: SharedArrayBuffer }
  | { type: 'abort'; id: number }
  | { type: 'dispose'; id: number };

export interface SerializedError {
  message: string;
  code: string;
  hint?: string;
}

export type WorkerReply =
  | { type: 'token'; id: number; event: TokenEvent }
  | {
      type: 'result';
      id: number;
      result: LoadedInfo | PrmInfo | EngineGenerateResult | EnginePlanResult | ScoreResult | number[] | null;
    }
  | { type: 'error'; id: number; error: SerializedError };

/** Distributes Omit over a union, so each request variant keeps its own fields. */
export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
