/**
 * Causal self-attention with grouped key/value heads over a KV cache the caller owns: ONNX's
 * Attention (opset 23) with the cache as its past, the caller's mask as its bias.
 *
 * Why not GroupQueryAttention with past and present bound to one buffer: onnxruntime-node copies
 * a preallocated output back into its JavaScript buffer instead of handing the buffer to
 * onnxruntime, so past and present are never shared, and GroupQueryAttention then clears and
 * refills the whole present buffer on every call (measured: 80 µs per layer at 100 tokens, 680 µs
 * at 1000). Here the cache is an input (inputs are not copied), the present keys and values stay
 * inside onnxruntime, and only this call's keys and values come out for the caller to append.
 * Attention-23 measured 30 µs per layer at 100 tokens and 220 µs at 1000 (the same attention
 * spelled out in MatMul/Softmax operators: 95 and 236 µs).
 *
 * The cache input may be longer than what it holds (spare capacity, padding): attention_bias, 0
 * where a query may look and −∞ elsewhere, decides what is attended to, over the columns
 * [cache capacity + this call's tokens].
 */
import type { GraphBuilder } from './graphBuilder';
import type { Hyperparameters } from './hyperparameters';

export const ATTENTION_INPUTS = {
  positions: 'position_ids',
  bias: 'attention_bias',
} as const;
export const cacheKey = (layer: number) => `cache.${layer}.key`;
export const cacheValue = (layer: number) => `cache.${layer}.value`;

export interface AttentionOutputs {
  /** [B,S,H·D] */
  out: string;
  /** This call's rotated keys and its values, [B,S,K·D] each. */
  keys: string;
  values: string;
}

/** Attention of one layer over its packed q|k|v projection [B,S,(H+2K)·D]. */
export function attention(
  g: GraphBuilder,
  hp: Hyperparameters,
  layer: number,
  qkv: string,
  rope: { cos: string; sin: string },
): AttentionOutputs {
  const { heads: H, kvHeads: K, headDim: D } = hp;
  const p = `blk.${layer}/attention`;
  const [qk, values] = g.op('Split', [qkv, g.int64s([(H + K) * D, K * D])], {
    name: `${p}/split_v`,
    outputs: 2,
    attributes: { axis: -1 },
  });
  // One rotation for the query and key heads together: the same formula per head.
  const [qkRotated] = g.op('RotaryEmbedding', [qk, ATTENTION_INPUTS.positions, rope.cos, rope.sin], {
    domain: 'com.microsoft',
    name: `${p}/rotary`,
    attributes: { interleaved: hp.ropeInterleaved ? 1 : 0, num_heads: H + K },
  });
  const [q, keys] = g.op('Split', [qkRotated, g.int64s([H * D, K * D])], {
    name: `${p}/split_qk`,
    outputs: 2,
    attributes: { axis: -1 },
  });
  const [out] = g.op(
    'Attention',
    [q, keys, values, ATTENTION_INPUTS.bias, cacheKey(layer), cacheValue(layer)],
    {
      name: p,
      // The present keys/values are onnxruntime's own (it wants them when given a past); unused.
      outputs: [`${p}/out`, `${p}/present_key`, `${p}/present_value`],
      attributes: { q_num_heads: H, kv_num_heads: K },
    },
  );
  return { out, keys, values };
}
