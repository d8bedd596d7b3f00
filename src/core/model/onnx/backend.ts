/**
 * The local ONNX ModelBackend as the caller sees it: a thin proxy to the model worker. It keeps
 * request ids, streams token messages to `onToken`, turns AbortSignals into the shared abort flag
 * plus an abort message, and bounds loading with a timeout.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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
import type { DeviceChoice } from './causalLmSession';
import type { EngineGenerateResult } from './engine';
import type { OnnxVariant } from './modelFolder';
import type { LoadedInfo, WithoutId, WorkerReply, WorkerRequest } from './protocol';

export interface OnnxLoadOptions {
  modelDir: string;
  variant?: OnnxVariant;
  device?: DeviceChoice;
  /** CPU threads for onnxruntime; 0 or undefined: as many as cores. */
  threads?: number;
  /** Milliseconds to wait for the model to load (default 120 000). */
  loadTimeoutMs?: number;
  /** Path of the worker script; found next to this module when omitted. */
  workerPath?: string;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onToken?: (event: TokenEvent) => void;
}

/** The worker script: `modelWorker.js` beside the esbuild bundle, or `worker.js` beside tsc output. */
export function resolveWorkerPath(dir: string = __dirname): string {
  const candidates = [join(dir, 'modelWorker.js'), join(dir, 'worker.js'), join(dir, 'onnx', 'worker.js')];
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new ModelError(
      `The model worker script is missing (looked for ${candidates.join(', ')}).`,
      'load',
      'Rebuild the extension (npm run build); dist/modelWorker.js must ship beside dist/extension.js.',
    );
  }
  return found;
}

export class OnnxBackend implements ModelBackend {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failure: ModelError | undefined;

  private constructor(
    private readonly worker: Worker,
    public info: ModelInfo,
  ) {
    worker.on('message', (reply: WorkerReply) => this.onReply(reply));
    worker.on('error', (e) => this.fail(`The model worker crashed: ${e.message}`));
    worker.on('exit', (code) => this.fail(`The model worker exited (code ${code}).`));
  }

  static async load(options: OnnxLoadOptions): Promise<OnnxBackend> {
    const worker = new Worker(options.workerPath ?? resolveWorkerPath());
    const backend = new OnnxBackend(worker, { backend: 'onnx', name: '', device: 'cpu', contextWindow: 0 });
    const timeoutMs = options.loadTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ModelError(
              `The model did not load within ${Math.round(timeoutMs / 1000)} s.`,
              'load',
              'The machine may be short of memory; try the q4 variant or close other programs.',
            ),
          ),
        timeoutMs,
      );
    });
    try {
      const { modelDir, variant, device, threads } = options;
      const loaded = (await Promise.race([
        backend.request({ type: 'load', options: { modelDir, variant, device, threads } }).done,
        timeout,
      ])) as LoadedInfo;
      backend.info = { backend: 'onnx', ...loaded };
      return backend;
    } catch (e) {
      await worker.terminate();
      throw e;
    } finally {
      clearTimeout(timer);
    }
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
    const { id, done: work } = this.request(
      { type: 'generate', input, options: engineOptions, abortFlag: flag },
      onEvent,
    );

    let onAbort: (() => void) | undefined;
    const abortPromise = new Promise<GenerateResult>((resolve) => {
      onAbort = () => {
        aborted = true;
        Atomics.store(new Int32Array(flag), 0, 1);
        this.post({ type: 'abort', id });
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

  async score(
    prompt: ModelInput,
    continuation: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ScoreResult> {
    if (options.signal?.aborted) throw new ModelError('Scoring was cancelled.', 'aborted');
    const flag = new SharedArrayBuffer(4);
    const { id, done: work } = this.request({ type: 'score', prompt, continuation, abortFlag: flag });
    const onAbort = () => {
      Atomics.store(new Int32Array(flag), 0, 1);
      this.post({ type: 'abort', id });
      const pending = this.pending.get(id);
      this.pending.delete(id);
      pending?.reject(new ModelError('Scoring was cancelled.', 'aborted'));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return (await work) as ScoreResult;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  async dispose(): Promise<void> {
    if (!this.failure) {
      const done = this.request({ type: 'dispose' }).done.catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([done, new Promise((r) => (timer = setTimeout(r, 5000)))]);
      clearTimeout(timer);
    }
    this.failure ??= new ModelError('The model was unloaded.', 'load', 'Load the model again.');
    await this.worker.terminate();
  }

  private request(
    message: WithoutId<WorkerRequest>,
    onToken?: (event: TokenEvent) => void,
  ): { id: number; done: Promise<unknown> } {
    const id = this.nextId++;
    if (this.failure) return { id, done: Promise.reject(this.failure) };
    const done = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onToken });
      this.post({ ...message, id } as WorkerRequest);
    });
    return { id, done };
  }

  private post(message: WorkerRequest): void {
    this.worker.postMessage(message);
  }

  private onReply(reply: WorkerReply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    if (reply.type === 'token') {
      pending.onToken?.(reply.event);
      return;
    }
    this.pending.delete(reply.id);
    if (reply.type === 'result') pending.resolve(reply.result);
    else
      pending.reject(
        new ModelError(reply.error.message, reply.error.code as ModelError['code'], reply.error.hint),
      );
  }

  private fail(message: string): void {
    this.failure ??= new ModelError(
      message,
      'internal',
      'Run the command again; the model will be reloaded.',
    );
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }
}
