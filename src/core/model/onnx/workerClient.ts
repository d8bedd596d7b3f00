/**
 * The caller's side of the model worker's message protocol: request ids, one pending promise per
 * request, token messages to the request's listener, and one failure that rejects everything
 * outstanding when the worker crashes or exits. Used by the generator backend and the PRM scorer.
 */
import { Worker } from 'node:worker_threads';
import { ModelError, type TokenEvent } from '../types';
import { findWorkerScript } from '../workerScript';
import type { WithoutId, WorkerReply, WorkerRequest } from './workerMessages';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onToken?: (event: TokenEvent) => void;
}

/** The worker script: `modelWorker.js` beside the esbuild bundle, or `worker.js` beside tsc output. */
export function resolveWorkerPath(dir: string = __dirname): string {
  return findWorkerScript(
    dir,
    ['modelWorker.js', 'worker.js', 'onnx/worker.js'],
    'model worker script',
    'modelWorker.js',
  );
}

export class WorkerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failure: ModelError | undefined;

  constructor(private readonly worker: Worker) {
    worker.on('message', (reply: WorkerReply) => this.onReply(reply));
    worker.on('error', (e) => this.fail(`The model worker crashed: ${e.message}`));
    worker.on('exit', (code) => this.fail(`The model worker exited (code ${code}).`));
  }

  request(
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

  /**
   * A request the caller can cancel: the worker sees the shared abort flag (checked before and
   * during the work) and an abort message, and the promise rejects with `cancelled()` at once.
   */
  async cancellable<T>(
    build: (abortFlag: SharedArrayBuffer) => WithoutId<WorkerRequest>,
    signal: AbortSignal | undefined,
    cancelled: () => ModelError,
    onToken?: (event: TokenEvent) => void,
  ): Promise<T> {
    if (signal?.aborted) throw cancelled();
    const flag = new SharedArrayBuffer(4);
    const { id, done } = this.request(build(flag), onToken);
    const onAbort = () => {
      Atomics.store(new Int32Array(flag), 0, 1);
      this.post({ type: 'abort', id });
      this.reject(id, cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return (await done) as T;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  post(message: WorkerRequest): void {
    this.worker.postMessage(message);
  }

  /** Settles a request early (cancellation): its late reply is then ignored. */
  private reject(id: number, error: Error): void {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    pending?.reject(error);
  }

  /** Resolves with the load result, or rejects after `timeoutMs` (and terminates the worker). */
  async load(message: WithoutId<WorkerRequest>, timeoutMs: number, what: string): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ModelError(
              `The ${what} did not load within ${Math.round(timeoutMs / 1000)} s.`,
              'load',
              'The machine may be short of memory; try a quantized variant or close other programs.',
            ),
          ),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.request(message).done, timeout]);
    } catch (e) {
      await this.worker.terminate();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Asks the worker to release its session (bounded wait), then ends it. */
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
