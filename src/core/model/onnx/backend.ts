/**
 * The local ONNX ModelBackend as the caller sees it: a thin proxy to the model worker. It keeps
 * request ids, streams token messages to `onToken`, turns AbortSignals into the shared abort flag
 * plus an abort message, and bounds loading with a timeout.
 */
import { Worker } from 'node:worker_threads';
import {
  ModelError,
  type Completion,
  type GenerateOptions,
  type GenerateResult,
  type GeneratedToken,
  type ModelBackend,
  type ModelInfo,
  type ModelInput,
  type ScoreResult,
  type TokenEvent,
} from '../types';
import type { PlanOptions, PlanResult, PlanSegment, PlanSupport } from '../plan';
import type { DeviceChoice } from './causalLmSession';
import type { EngineGenerateResult } from './engine';
import type { OnnxVariant } from './modelFolder';
import type { LoadedInfo } from './workerMessages';
import { WorkerClient, resolveWorkerPath } from './workerClient';

export { resolveWorkerPath };

export interface OnnxLoadOptions {
  modelDir: string;
  variant?: OnnxVariant;
  device?: DeviceChoice;
  /** CPU threads for onnxruntime; 0 or undefined: as many as cores. */
  threads?: number;
  /** false: no request starts from the last one's cache (prefixCache.ts); benchmarks compare the two. */
  prefixCache?: boolean;
  /** Milliseconds to wait for the model to load (default 120 000). */
  loadTimeoutMs?: number;
  /** Path of the worker script; found next to this module when omitted. */
  workerPath?: string;
}

export class OnnxBackend implements ModelBackend {
  private readonly client: WorkerClient;

  private constructor(
    worker: Worker,
    public info: ModelInfo,
  ) {
    this.client = new WorkerClient(worker);
  }

  static async load(options: OnnxLoadOptions): Promise<OnnxBackend> {
    const worker = new Worker(options.workerPath ?? resolveWorkerPath());
    const backend = new OnnxBackend(worker, { backend: 'onnx', name: '', device: 'cpu', contextWindow: 0 });
    const { modelDir, variant, device, threads, prefixCache } = options;
    const loaded = (await backend.client.load(
      { type: 'load', options: { modelDir, variant, device, threads, prefixCache } },
      options.loadTimeoutMs ?? 120_000,
      'model',
    )) as LoadedInfo;
    backend.info = { backend: 'onnx', ...loaded };
    return backend;
  }

  async generate(input: ModelInput, options: GenerateOptions = {}): Promise<GenerateResult> {
    const started = performance.now();
    const n = Math.max(1, Math.floor(options.n ?? 1));
    const streamed: { text: string; tokens: GeneratedToken[] }[] = Array.from({ length: n }, () => ({
      text: '',
      tokens: [],
    }));
    const abortedResult = (): GenerateResult => ({
      completions: streamed.map((s): Completion => ({
        text: s.text,
        tokens: s.tokens,
        finishReason: 'abort',
      })),
      promptTokens: 0,
      timeToFirstTokenMs: firstTokenAt !== undefined ? firstTokenAt - started : performance.now() - started,
      totalMs: performance.now() - started,
    });
    let firstTokenAt: number | undefined;
    if (options.signal?.aborted) return abortedResult();

    const { signal, onToken, ...engineOptions } = options;
    const flag = new SharedArrayBuffer(4);
    let aborted = false;
    const onEvent = (event: TokenEvent) => {
      // After an abort nothing more reaches the caller, so the result holds exactly what was streamed.
      if (aborted) return;
      if (event.tokenId !== undefined) firstTokenAt ??= performance.now();
      const s = streamed[event.sequence];
      s.text += event.text;
      if (event.tokenId !== undefined)
        s.tokens.push({ id: event.tokenId, text: event.text, logprob: event.logprob ?? null });
      onToken?.(event);
    };
    const { id, done: work } = this.client.request(
      { type: 'generate', input, options: engineOptions, abortFlag: flag },
      onEvent,
    );

    let onAbort: (() => void) | undefined;
    const abortPromise = new Promise<GenerateResult>((resolve) => {
      onAbort = () => {
        aborted = true;
        Atomics.store(new Int32Array(flag), 0, 1);
        this.client.post({ type: 'abort', id });
        resolve(abortedResult());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const result = await Promise.race([work.then((r) => r as EngineGenerateResult), abortPromise]);
      if ('promptTokens' in result && !aborted) {
        return {
          ...result,
          timeToFirstTokenMs: (firstTokenAt ?? performance.now()) - started,
          totalMs: performance.now() - started,
        };
      }
      work.catch(() => undefined);
      return result;
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The engine masks its own logits: every plan runs exactly as written. */
  async planSupport(): Promise<PlanSupport> {
    return { mode: 'native' };
  }

  /**
   * Runs the plan in the worker. Free text streams through `onToken` (forced text and chosen
   * options too, with their segment index); cancelling rejects at once with ModelError('aborted')
   * and the worker stops before its next forward pass.
   */
  async generatePlan(input: ModelInput, plan: PlanSegment[], options: PlanOptions = {}): Promise<PlanResult> {
    const started = performance.now();
    const { signal, onToken, ...engineOptions } = options;
    let firstTokenAt: number | undefined;
    const result = await this.client.cancellable<Omit<PlanResult, 'mode'>>(
      (abortFlag) => ({ type: 'generatePlan', input, plan, options: engineOptions, abortFlag }),
      signal,
      () => new ModelError('The generation was cancelled.', 'aborted'),
      (event) => {
        firstTokenAt ??= performance.now();
        onToken?.(event);
      },
    );
    return {
      mode: 'native',
      ...result,
      timeToFirstTokenMs: (firstTokenAt ?? performance.now()) - started,
      totalMs: performance.now() - started,
    };
  }

  async score(
    prompt: ModelInput,
    continuation: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ScoreResult> {
    return this.client.cancellable<ScoreResult>(
      (abortFlag) => ({ type: 'score', prompt, continuation, abortFlag }),
      options.signal,
      () => new ModelError('Scoring was cancelled.', 'aborted'),
    );
  }

  async dispose(): Promise<void> {
    await this.client.dispose();
  }
}
