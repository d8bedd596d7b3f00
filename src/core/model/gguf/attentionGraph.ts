/**
 * Causal self-attention with grouped key/value heads, built from standard operators over a KV
 * cache the caller owns.
 *
 * Why not GroupQueryAttention: onnxruntime-node copies a preallocated output back into its
 * JavaScript buffer instead of handing the buffer to onnxruntime, so a cache bound as both past and
 * present is never shared; GroupQueryAttention then clears and refills the whole present buffer on
 * every call (measured: cost proportional to the buffer, 80 µs per layer at 100 tokens, 680 µs at
 * 1000). Here the cache is only read (graph inputs are not copied) and only this call's keys and
 * values come out; the caller appends them to its buffers. Work per call is proportional to the
 * tokens attended to, with nothing copied.
 *
 * Shapes (B batch, S new tokens, C cache capacity, H heads, K kv heads, G = H / K, D head size):
 *   q [B,S,H·D] → [B,K,G·S,D] (rows ordered group-major, then position)
 *   scores = [q·cacheᵀ | q·newᵀ] / √D + attention_bias   [B,K,G·S,C+S]
 *   out = softmax · [cache values ; new values] → [B,S,H·D]
 * attention_bias holds 0 where a query may look and −∞ elsewhere (padding, unused capacity, the
 * future), so the caller's padded layout is respected as is.
 */
import type { GraphBuilder } from './graphBuilder';
import type { Hyperparameters } from './hyperparameters';

export const ATTENTION_INPUTS = {
  positions: 'position_ids',
  bias: 'attention_bias',
} as const;
export const cacheKey = (layer: number) => `cache.${layer}.key`;
export const cacheValue = (layer: number) => `cache.${layer}.value`;
export const newKey = (layer: number) => `new.${layer}.key`;
export const newValue = (layer: number) => `new.${layer}.value`;

/** Values every layer's attention shares: rotary tables and the split of the probabilities. */
export interface AttentionShared {
  cos: string;
  sin: string;
  /** int64 [2]: [cache capacity, new tokens], to split the probabilities between the two parts. */
  probabilitySplit: string;
}

/** Computes the shared values once per graph. */
export function attentionShared(g: GraphBuilder, cos: string, sin: string, embeds: string): AttentionShared {
  const [cacheShape] = g.op('Shape', [cacheKey(0)], { name: 'attention/cache_shape' });
  const [capacity] = g.op('Gather', [cacheShape, g.int64s([2])], {
    name: 'attention/capacity',
    attributes: { axis: 0 },
  });
  const [embedsShape] = g.op('Shape', [embeds], { name: 'attention/embeds_shape' });
  const [sequence] = g.op('Gather', [embedsShape, g.int64s([1])], {
    name: 'attention/sequence',
    attributes: { axis: 0 },
  });
  const [probabilitySplit] = g.op('Concat', [capacity, sequence], {
    name: 'attention/split',
    attributes: { axis: 0 },
  });
  return { cos, sin, probabilitySplit };
}

/** Attention of one layer over its packed q|k|v projection [B,S,(H+2K)·D]; returns [B,S,H·D]. */
export function attention(
  g: GraphBuilder,
  hp: Hyperparameters,
  layer: number,
  qkv: string,
  shared: AttentionShared,
): string {
  const { heads: H, kvHeads: K, headDim: D } = hp;
  const G = H / K;
  const p = `blk.${layer}/attention`;
  const [qk, v] = g.op('Split', [qkv, g.int64s([(H + K) * D, K * D])], {
    name: `${p}/split_v`,
    outputs: 2,
    attributes: { axis: -1 },
  });
  // One rotation for the query and key heads together: the same formula per head.
  const [qkRotated] = g.op('RotaryEmbedding', [qk, ATTENTION_INPUTS.positions, shared.cos, shared.sin], {
    domain: 'com.microsoft',
    name: `${p}/rotary`,
    attributes: { interleaved: hp.ropeInterleaved ? 1 : 0, num_heads: H + K },
  });
  const [q, k] = g.op('Split', [qkRotated, g.int64s([H * D, K * D])], {
    name: `${p}/split_qk`,
    outputs: 2,
    attributes: { axis: -1 },
  });

  const [q5] = g.op('Reshape', [q, g.int64s([0, 0, K, G, D])], { name: `${p}/q5` });
  const [qT] = g.op('Transpose', [q5], { name: `${p}/q_transpose`, attributes: { perm: [0, 2, 3, 1, 4] } });
  const [q4] = g.op('Reshape', [qT, g.int64s([0, K, -1, D])], { name: `${p}/q4` });
  const [k4] = g.op('Reshape', [k, g.int64s([0, 0, K, D])], { name: `${p}/k4` });
  g.op('Transpose', [k4], {
    name: `${p}/k_transpose`,
    outputs: [newKey(layer)],
    attributes: { perm: [0, 2, 1, 3] },
  });
  const [v4] = g.op('Reshape', [v, g.int64s([0, 0, K, D])], { name: `${p}/v4` });
  g.op('Transpose', [v4], {
    name: `${p}/v_transpose`,
    outputs: [newValue(layer)],
    attributes: { perm: [0, 2, 1, 3] },
  });

  const scaled = {
    domain: 'com.microsoft',
    attributes: { transA: 0, transB: 1, alpha: { float: 1 / Math.sqrt(D) } },
  };
  const [cacheScores] = g.op('FusedMatMul', [q4, cacheKey(layer)], { ...scaled, name: `${p}/scores_cache` });
  const [newScores] = g.op('FusedMatMul', [q4, newKey(layer)], { ...scaled, name: `${p}/scores_new` });
  const [scores] = g.op('Concat', [cacheScores, newScores], {
    name: `${p}/scores`,
    attributes: { axis: -1 },
  });
  const [masked] = g.op('Add', [scores, ATTENTION_INPUTS.bias], { name: `${p}/mask` });
  const [probabilities] = g.op('Softmax', [masked], { name: `${p}/softmax`, attributes: { axis: -1 } });
  const [cacheP, newP] = g.op('Split', [probabilities, shared.probabilitySplit], {
    name: `${p}/split_probabilities`,
    outputs: 2,
    attributes: { axis: -1 },
  });
  const [fromCache] = g.op('MatMul', [cacheP, cacheValue(layer)], { name: `${p}/values_cache` });
  const [fromNew] = g.op('MatMul', [newP, newValue(layer)], { name: `${p}/values_new` });
  const [out4] = g.op('Add', [fromCache, fromNew], { name: `${p}/values` });
  const [out5] = g.op('Reshape', [out4, g.int64s([0, K, G, -1, D])], { name: `${p}/out5` });
  const [outT] = g.op('Transpose', [out5], {
    name: `${p}/out_transpose`,
    attributes: { perm: [0, 3, 1, 2, 4] },
  });
  return g.op('Reshape', [outT, g.int64s([0, 0, H * D])], { name: `${p}/out` })[0];
}
