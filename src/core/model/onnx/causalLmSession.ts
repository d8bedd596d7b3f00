/**
 * One onnxruntime session of a causal LM with a KV cache (onnx-community graph convention), the
 * check that the graph fits config.json, and the forward pass.
 */
import * as ort from 'onnxruntime-node';
import { ModelError } from '../types';
import type { ModelShape } from './modelFolder';
import { openInferenceSession, type DeviceChoice } from './inferenceSession';

export type { DeviceChoice };

/** The KV cache: one key and one value tensor per layer, [batch, kvHeads, past, headDim]. */
export type KvCache = ort.Tensor[];

export interface ForwardInput {
  /** Row-major [batch, seq] token ids (pads included). */
  ids: number[];
  batch: number;
  seq: number;
  /** Row-major [batch, past + seq]: 1 for real tokens, 0 for left padding. */
  mask: number[];
  /** Row-major [batch, seq]. */
  positions: number[];
  /** Cache from the previous call; undefined for the first. */
  past: KvCache | undefined;
}

export interface ForwardOutput {
  /** [batch, seq, vocab] */
  logits: Float32Array;
  vocab: number;
  present: KvCache;
}

const int64 = (values: number[], dims: number[]) =>
  new ort.Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );

export class CausalLmSession {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly shape: ModelShape,
    readonly device: 'cpu' | 'cuda',
    private readonly feedsPositions: boolean,
    private readonly extraFeeds: Record<string, ort.Tensor>,
  ) {}

  static async create(
    modelFile: string,
    shape: ModelShape,
    device: DeviceChoice,
    threads?: number,
  ): Promise<CausalLmSession> {
    const { session, device: used } = await openInferenceSession(modelFile, device, threads);
    try {
      const { feedsPositions, extraFeeds } = checkGraph(session, shape);
      return new CausalLmSession(session, shape, used, feedsPositions, extraFeeds);
    } catch (e) {
      await session.release();
      throw e;
    }
  }

  emptyCache(batch: number): KvCache {
    const dims = [batch, this.shape.kvHeads, 0, this.shape.headDim];
    return Array.from(
      { length: 2 * this.shape.layers },
      () => new ort.Tensor('float32', new Float32Array(0), dims),
    );
  }

  /**
   * The cache cut back to its first `length` positions, to go on from an earlier point (a plan
   * scoring several options from the same text). Use only the returned cache afterwards: a cache
   * passed here or to `forward` may be reused in place.
   */
  truncateCache(cache: KvCache, length: number): KvCache {
    const [batch, heads, past, dim] = cache[0].dims;
    if (length >= past) return cache;
    const keep = Math.max(0, length);
    return cache.map((tensor) => {
      const data = tensor.data as Float32Array;
      const out = new Float32Array(batch * heads * keep * dim);
      for (let row = 0; row < batch * heads; row++) {
        out.set(data.subarray(row * past * dim, (row * past + keep) * dim), row * keep * dim);
      }
      return new ort.Tensor('float32', out, [batch, heads, keep, dim]);
    });
  }

  async forward(input: ForwardInput): Promise<ForwardOutput> {
    const past = input.past ?? this.emptyCache(input.batch);
    const pastLen = past[0].dims[2];
    const feeds: Record<string, ort.Tensor> = {
      ...this.extraFeeds,
      input_ids: int64(input.ids, [input.batch, input.seq]),
      attention_mask: int64(input.mask, [input.batch, pastLen + input.seq]),
    };
    if (this.feedsPositions) feeds.position_ids = int64(input.positions, [input.batch, input.seq]);
    if ('use_cache_branch' in this.extraFeeds) {
      feeds.use_cache_branch = new ort.Tensor('bool', [input.past !== undefined], [1]);
    }
    for (let i = 0; i < this.shape.layers; i++) {
      feeds[`past_key_values.${i}.key`] = past[2 * i];
      feeds[`past_key_values.${i}.value`] = past[2 * i + 1];
    }
    const out = await this.session.run(feeds);
    const logits = out.logits;
    const present: KvCache = [];
    for (let i = 0; i < this.shape.layers; i++)
      present.push(out[`present.${i}.key`], out[`present.${i}.value`]);
    return { logits: logits.data as Float32Array, vocab: logits.dims[2], present };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

const shapeHint =
  'The ONNX graph and config.json in this folder do not belong together: re-export the model, or put back the config.json it was exported with.';

/** Verifies names, types and static dimensions of the graph against config.json. */
function checkGraph(
  session: ort.InferenceSession,
  shape: ModelShape,
): { feedsPositions: boolean; extraFeeds: Record<string, ort.Tensor> } {
  const inputs = new Set(session.inputNames);
  const outputs = new Set(session.outputNames);
  const missingIo = [
    ...['input_ids', 'attention_mask'].filter((n) => !inputs.has(n)),
    ...['logits'].filter((n) => !outputs.has(n)),
  ];
  if (missingIo.length > 0) {
    throw new ModelError(
      `The ONNX graph lacks ${missingIo.join(', ')}; it is not a causal LM export.`,
      'model-shape',
      shapeHint,
    );
  }
  const graphLayers = session.inputNames.filter((n) => /^past_key_values\.\d+\.key$/.test(n)).length;
  if (graphLayers !== shape.layers) {
    throw new ModelError(
      `config.json says ${shape.layers} layers but the ONNX graph has a KV cache for ${graphLayers}.`,
      'model-shape',
      graphLayers === 0
        ? 'Export the model with its KV cache (past_key_values inputs, present outputs).'
        : shapeHint,
    );
  }
  const expected = [];
  for (let i = 0; i < shape.layers; i++) {
    expected.push(`past_key_values.${i}.key`, `past_key_values.${i}.value`);
    if (!outputs.has(`present.${i}.key`) || !outputs.has(`present.${i}.value`)) {
      throw new ModelError(
        `The ONNX graph lacks the output present.${i}.key/value.`,
        'model-shape',
        shapeHint,
      );
    }
  }
  for (const meta of session.inputMetadata) {
    if (!meta.name.startsWith('past_key_values.') || !meta.isTensor) continue;
    if (meta.type !== 'float32') {
      throw new ModelError(
        `The KV cache of this graph is ${meta.type}; only float32 caches are supported.`,
        'model-shape',
        'Use the fp32, q8 or q4 export (they keep a float32 cache).',
      );
    }
    const [, heads, , dim] = meta.shape;
    if (
      (typeof heads === 'number' && heads !== shape.kvHeads) ||
      (typeof dim === 'number' && dim !== shape.headDim)
    ) {
      throw new ModelError(
        `${meta.name} has shape [${meta.shape.join(', ')}] but config.json implies [batch, ${shape.kvHeads}, past, ${shape.headDim}].`,
        'model-shape',
        shapeHint,
      );
    }
  }
  const extraFeeds: Record<string, ort.Tensor> = {};
  const known = new Set(['input_ids', 'attention_mask', 'position_ids', ...expected]);
  for (const name of session.inputNames) {
    if (known.has(name)) continue;
    if (name === 'use_cache_branch') extraFeeds[name] = new ort.Tensor('bool', [false], [1]);
    // 0 keeps the logits of every position, which score() needs.
    else if (name === 'num_logits_to_keep' || name === 'logits_to_keep') extraFeeds[name] = int64([0], []);
    else
      throw new ModelError(
        `The ONNX graph has an input "${name}" this backend does not know how to feed.`,
        'model-shape',
        shapeHint,
      );
  }
  return { feedsPositions: inputs.has('position_ids'), extraFeeds };
}
