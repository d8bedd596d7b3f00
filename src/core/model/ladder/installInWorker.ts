/**
 * Runs `installById` in a worker thread and mirrors its API: progress callbacks, an AbortSignal,
 * a promise of the result. Errors keep their ModelError code and hint across the thread boundary.
 */

import { Worker } from 'node:worker_threads';
import { ModelError } from '../types';
import { findWorkerScript } from '../workerScript';
import type { InstallResult } from './installer';
import type { InstallWorkerReply, InstallWorkerRequest } from './installWorkerMessages';
import type { InstallProgress } from './progress';
import type { ModelVariant } from './variants';

/** `ladderWorker.js` beside the esbuild bundle, or `installWorker.js` beside the tsc output. */
export function resolveInstallWorkerPath(dir: string = __dirname): string {
  return findWorkerScript(
    dir,
    ['ladderWorker.js', 'installWorker.js'],
    'model install worker',
    'ladderWorker.js',
  );
}

export interface InstallInWorkerOptions {
  variant?: ModelVariant;
  modelDir?: string;
  filesBaseUrl?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onProgress?: (progress: InstallProgress) => void;
  workerPath?: string;
}

export function installInWorker(id: string, options: InstallInWorkerOptions = {}): Promise<InstallResult> {
  const worker = new Worker(options.workerPath ?? resolveInstallWorkerPath());
  const send = (request: InstallWorkerRequest) => worker.postMessage(request);
  return new Promise<InstallResult>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      settle();
      void worker.terminate();
    };
    const onAbort = () => send({ type: 'cancel' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (reply: InstallWorkerReply) => {
      if (reply.type === 'progress') options.onProgress?.(reply.progress);
      else if (reply.type === 'done') finish(() => resolve(reply.result));
      else
        finish(() =>
          reject(new ModelError(reply.message, (reply.code as ModelError['code']) ?? 'internal', reply.hint)),
        );
    });
    worker.on('error', (err) =>
      finish(() => reject(new ModelError(`The model install worker crashed: ${err.message}`, 'internal'))),
    );
    worker.on('exit', (code) =>
      finish(() => reject(new ModelError(`The model install worker exited (code ${code}).`, 'internal'))),
    );
    send({
      type: 'install',
      id,
      variant: options.variant,
      modelDir: options.modelDir,
      filesBaseUrl: options.filesBaseUrl,
      env: options.env,
    });
    if (options.signal?.aborted) onAbort();
  });
}
