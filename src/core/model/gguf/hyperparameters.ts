/**
 * What a GGUF's metadata says about the transformer: architecture, sizes, RMS epsilon, RoPE base
 * and style. Only the architectures the graph builder implements are accepted.
 */
import type { GgufFile, GgufValue } from './ggufFile';

/** Architectures whose graph is built: Llama-style decoders with RMSNorm, SwiGLU and RoPE. */
export const SUPPORTED_ARCHITECTURES = ['llama', 'qwen2'] as const;
export type Architecture = (typeof SUPPORTED_ARCHITECTURES)[number];

export interface Hyperparameters {
  architecture: Architecture;
  name: string;
  layers: number;
  hidden: number;
  intermediate: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocabSize: number;
  contextLength: number;
  rmsEpsilon: number;
  ropeTheta: number;
  /**
   * llama.cpp rotates adjacent pairs (x[2i], x[2i+1]) for arch `llama`, whose GGUF converter
   * permuted the Q/K rows to make that equal to Hugging Face's rotate-half; `qwen2` keeps
   * unpermuted rows and rotates halves (x[i], x[i + d/2]) ("NeoX" style).
   */
  ropeInterleaved: boolean;
  /** q/k/v projections have biases (qwen2). */
  attentionBias: boolean;
  /** No output.weight: the token embedding doubles as the output projection. */
  tiedEmbeddings: boolean;
}

/** A GGUF this converter cannot turn into a graph; the message says why and what to do. */
export class UnsupportedModelError extends Error {}

function num(meta: Map<string, GgufValue>, key: string, fallback?: number): number {
  const v = meta.get(key);
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (fallback !== undefined) return fallback;
  throw new UnsupportedModelError(`The GGUF metadata lacks ${key}; the file is incomplete or not a model.`);
}

export function readHyperparameters(file: GgufFile): Hyperparameters {
  const meta = file.metadata;
  const arch = meta.get('general.architecture');
  if (typeof arch !== 'string') {
    throw new UnsupportedModelError('The GGUF metadata has no general.architecture; it is not a model file.');
  }
  if (!(SUPPORTED_ARCHITECTURES as readonly string[]).includes(arch)) {
    throw new UnsupportedModelError(
      `The GGUF holds a "${arch}" model; only ${SUPPORTED_ARCHITECTURES.join(' and ')} models (SmolLM2, Qwen2.5) can be converted. Use a GGUF of one of those, or serve this model with llama.cpp and the OpenAI-compatible backend.`,
    );
  }
  const architecture = arch as Architecture;
  const hidden = num(meta, `${arch}.embedding_length`);
  const heads = num(meta, `${arch}.attention.head_count`);
  const kvHeads = num(meta, `${arch}.attention.head_count_kv`, heads);
  const headDim = num(meta, `${arch}.attention.key_length`, hidden / heads);
  const ropeDims = num(meta, `${arch}.rope.dimension_count`, headDim);
  const embedding = file.tensors.get('token_embd.weight');
  if (!embedding) throw new UnsupportedModelError('The GGUF has no token_embd.weight tensor.');
  const vocabSize = num(meta, `${arch}.vocab_size`, embedding.dims[1]);
  const scaling = meta.get(`${arch}.rope.scaling.type`);
  if (ropeDims !== headDim || (scaling !== undefined && scaling !== 'none')) {
    throw new UnsupportedModelError(
      `This model uses partial or scaled RoPE (${ropeDims} of ${headDim} dimensions, scaling ${String(scaling)}), which the converter does not implement.`,
    );
  }
  if (!Number.isInteger(headDim) || headDim % 16 !== 0) {
    throw new UnsupportedModelError(
      `Head size ${headDim} is not a multiple of 16, which onnxruntime's attention needs.`,
    );
  }
  return {
    architecture,
    name: String(meta.get('general.name') ?? arch),
    layers: num(meta, `${arch}.block_count`),
    hidden,
    intermediate: num(meta, `${arch}.feed_forward_length`),
    heads,
    kvHeads,
    headDim,
    vocabSize,
    contextLength: num(meta, `${arch}.context_length`, 2048),
    rmsEpsilon: num(meta, `${arch}.attention.layer_norm_rms_epsilon`),
    ropeTheta: num(meta, `${arch}.rope.freq_base`, 10000),
    ropeInterleaved: architecture === 'llama',
    attentionBias: file.tensors.has('blk.0.attn_q.bias'),
    tiedEmbeddings: !file.tensors.has('output.weight'),
  };
}
