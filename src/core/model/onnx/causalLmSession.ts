/**
 * One onnxruntime session of a causal LM with a KV cache (onnx-community graph convention), the
 * check that the graph fits config.json, and the forward pass.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { ModelError } from '../types';
import type { ModelShape } from './modelFolder';

export type DeviceChoice = 'auto' | 'cpu' | 'cuda';

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
    const base: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all', interOpNumThreads: 1 };
    // Left out, onnxruntime uses one thread per core.
    if (threads && threads > 0) base.intraOpNumThreads = Math.floor(threads);
    let session: ort.InferenceSession;
    let used: 'cpu' | 'cuda' = 'cpu';
    // onnxruntime-node does not fall back on its own: a provider list with an unavailable CUDA
    // throws, so CUDA is tried alone and CPU is the second attempt.
    const cudaLibrary = cudaProviderLibrary();
    if (device === 'cuda' && !existsSync(cudaLibrary)) {
      throw new ModelError(
        `CUDA was requested but onnxruntime-node has no CUDA provider (${cudaLibrary} is missing).`,
        'load',
        'Set stepwise.model.onnx.device to "auto" or "cpu", or install onnxruntime-node with its CUDA provider libraries (npm install without ONNXRUNTIME_NODE_INSTALL=skip).',
      );
    }
    // Without the provider library the CUDA attempt can only fail (loudly, on stderr): skip it.
    if (device === 'cuda' || (device === 'auto' && existsSync(cudaLibrary))) {
      try {
        // Quiet: on machines without CUDA the failed attempt is expected, not worth a stderr line.
        session = await ort.InferenceSession.create(modelFile, {
          ...base,
          executionProviders: ['cuda'],
          logSeverityLevel: 4,
        });
        used = 'cuda';
      } catch (e) {
        if (device === 'cuda') {
          throw new ModelError(
            `CUDA could not run the model: ${(e as Error).message}`,
            'load',
            'Set stepwise.model.onnx.device to "auto" or "cpu", or install the onnxruntime CUDA provider libraries, the NVIDIA driver, CUDA and cuDNN 9.',
          );
        }
        session = await CausalLmSession.createCpu(modelFile, base);
      }
    } else {
      session = await CausalLmSession.createCpu(modelFile, base);
    }
    try {
      const { feedsPositions, extraFeeds } = checkGraph(session, shape);
      return new CausalLmSession(session, shape, used, feedsPositions, extraFeeds);
    } catch (e) {
      await session.release();
      throw e;
    }
  }

  private static async createCpu(
    modelFile: string,
    base: ort.InferenceSession.SessionOptions,
  ): Promise<ort.InferenceSession> {
    try {
      return await ort.InferenceSession.create(modelFile, { ...base, executionProviders: ['cpu'] });
    } catch (e) {
      throw new ModelError(
        `onnxruntime could not load ${modelFile}: ${(e as Error).message}`,
        'load',
        'The file may be damaged or from a newer ONNX opset; rebuild it with scripts/build-default-model.sh.',
      );
    }
  }

  emptyCache(batch: number): KvCache {
    const dims = [batch, this.shape.kvHeads, 0, this.shape.headDim];
    return Array.from(
      { length: 2 * this.shape.layers },
      () => new ort.Tensor('float32', new Float32Array(0), dims),
    );
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

/** Where onnxruntime-node looks for its CUDA execution provider: beside its native binding. */
function cudaProviderLibrary(): string {
  const root = dirname(require.resolve('onnxruntime-node/package.json'));
  const file =
    process.platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so';
  // onnxruntime-node 1.x loads its binding from bin/napi-v6 whatever the runtime's N-API version.
  return join(root, 'bin', 'napi-v6', process.platform, process.arch, file);
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
