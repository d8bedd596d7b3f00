/**
 * One onnxruntime session of a causal LM with a KV cache, and its forward pass. Two graph
 * conventions are spoken (see kvCache.ts): the onnx-community one with a copying cache, and the
 * one of GGUF conversions, whose cache this session owns and appends to in place. Which one a
 * folder holds is read off the graph's inputs.
 */
import type * as ort from 'onnxruntime-node';
import { ModelError } from '../types';
import { CopyingKvGraph } from './copyingKvGraph';
import { openInferenceSession, type DeviceChoice } from './inferenceSession';
import { truncate, type KvCache } from './kvCache';
import type { ForwardInput, ForwardOutput, GraphRunner } from './forward';
import type { ModelShape } from './modelFolder';
import { InPlaceKvGraph } from './inPlaceKvGraph';

export type { DeviceChoice, ForwardInput, ForwardOutput, GraphRunner, KvCache };

export type GraphKind = 'copying-cache' | 'in-place-cache';

export class CausalLmSession {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly runner: GraphRunner,
    readonly graphKind: GraphKind,
    readonly device: 'cpu' | 'cuda',
  ) {}

  static async create(
    modelFile: string,
    shape: ModelShape,
    device: DeviceChoice,
    threads?: number,
  ): Promise<CausalLmSession> {
    const { session, device: used } = await openInferenceSession(modelFile, device, threads);
    try {
      if (InPlaceKvGraph.recognises(session)) {
        const runner = new InPlaceKvGraph(session, shape, modelFile);
        return new CausalLmSession(session, runner, 'in-place-cache', used);
      }
      if (CopyingKvGraph.recognises(session)) {
        return new CausalLmSession(session, new CopyingKvGraph(session, shape), 'copying-cache', used);
      }
      throw new ModelError(
        'The ONNX graph has neither attention_mask nor attention_bias among its inputs; it is not a causal LM export this backend knows.',
        'model-shape',
        'Export the model with its KV cache (onnx-community layout), or convert a GGUF with `stepwise convert-gguf`.',
      );
    } catch (e) {
      await session.release();
      throw e;
    }
  }

  forward(input: ForwardInput): Promise<ForwardOutput> {
    return this.runner.forward(input);
  }

  /**
   * The cache cut back to its first `length` positions (counted as the caller's mask counts
   * them), to go on from an earlier point (a plan scoring several options from the same text).
   * Use only the returned cache afterwards: the one passed in may share its buffers.
   */
  truncateCache(cache: KvCache, length: number): KvCache {
    return truncate(cache, length);
  }

  async release(): Promise<void> {
    this.runner.release?.();
    await this.session.release();
  }
}
