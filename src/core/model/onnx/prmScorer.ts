/**
 * A StepScorer backed by a process reward model the trainer exported (task
 * "token-classification-prm"). The model runs in its own model worker, so scoring never blocks
 * the caller's thread; cancellation sets the request's abort flag and settles at once.
 */
import { Worker } from 'node:worker_threads';
import { ModelError } from '../types';
import type { PrmInfo, PrmLoadOptions } from './prmEngine';
import { WorkerClient, resolveWorkerPath } from './workerClient';
import type { StepScorer } from '../stepScorer';

export interface PrmScorerOptions extends PrmLoadOptions {
  /** Milliseconds to wait for the model to load (default 120 000). */
  loadTimeoutMs?: number;
  /** Path of the model worker script; found beside the bundle when omitted. */
  workerPath?: string;
}

export class OnnxPrmScorer implements StepScorer {
  readonly info: StepScorer['info'];

  private constructor(
    private readonly client: WorkerClient,
    readonly model: PrmInfo,
  ) {
    this.info = { kind: 'prm', name: model.name };
  }

  static async load(options: PrmScorerOptions): Promise<OnnxPrmScorer> {
    const client = new WorkerClient(new Worker(options.workerPath ?? resolveWorkerPath()));
    const { modelDir, variant, device, threads } = options;
    const info = (await client.load(
      { type: 'loadPrm', options: { modelDir, variant, device, threads } },
      options.loadTimeoutMs ?? 120_000,
      'process reward model',
    )) as PrmInfo;
    return new OnnxPrmScorer(client, info);
  }

  async scoreSteps(
    problem: string,
    steps: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<number[]> {
    return this.client.cancellable<number[]>(
      (abortFlag) => ({ type: 'scoreSteps', problem, steps: [...steps], abortFlag }),
      options.signal,
      () => new ModelError('Step scoring was cancelled.', 'aborted'),
    );
  }

  async dispose(): Promise<void> {
    await this.client.dispose();
  }
}
