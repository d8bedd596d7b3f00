/**
 * The onnx-community graph convention (Optimum / transformers.js exports, the trainer's torch
 * export, the tiny test models): inputs input_ids, attention_mask, optional position_ids and
 * past_key_values.N.key/value of shape [batch, kvHeads, past, headDim]; outputs logits for every
 * position and present.N.key/value, a new copy of the whole cache each call.
 */
import * as ort from 'onnxruntime-node';
import { ModelError } from '../types';
import type { ForwardInput, ForwardOutput, GraphRunner } from './forward';
import { CopyingKvCache } from './kvCache';
import type { ModelShape } from './modelFolder';

const int64 = (values: number[], dims: number[]) =>
  new ort.Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );

export class CopyingKvGraph implements GraphRunner {
  private readonly feedsPositions: boolean;
  private readonly extraFeeds: Record<string, ort.Tensor>;

  constructor(
    private readonly session: ort.InferenceSession,
    private readonly shape: ModelShape,
  ) {
    ({ feedsPositions: this.feedsPositions, extraFeeds: this.extraFeeds } = checkGraph(session, shape));
  }

  /** Whether the graph looks like this convention at all. */
  static recognises(session: ort.InferenceSession): boolean {
    return session.inputNames.includes('attention_mask');
  }

  private emptyCache(batch: number): CopyingKvCache {
    const dims = [batch, this.shape.kvHeads, 0, this.shape.headDim];
    return new CopyingKvCache(
      Array.from(
        { length: 2 * this.shape.layers },
        () => new ort.Tensor('float32', new Float32Array(0), dims),
      ),
    );
  }

  async forward(input: ForwardInput): Promise<ForwardOutput> {
    if (input.past && !(input.past instanceof CopyingKvCache)) {
      throw new ModelError(
        'This graph was given a KV cache of another graph.',
        'internal',
        'Pass back the cache forward() returned.',
      );
    }
    const past = (input.past ?? this.emptyCache(input.batch)).tensors;
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
    const present: ort.Tensor[] = [];
    for (let i = 0; i < this.shape.layers; i++)
      present.push(out[`present.${i}.key`], out[`present.${i}.value`]);
    // These graphs always return every position.
    return {
      logits: logits.data as Float32Array,
      vocab: logits.dims[2],
      rows: input.seq,
      present: new CopyingKvCache(present),
    };
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
