/**
 * The decoder graph of a Llama-style model (llama, qwen2) as llama.cpp computes it, from GGUF
 * tensors carried over block for block.
 *
 * Interface (the "caller-owned cache" convention; CausalLmSession speaks it):
 *   inputs   inputs_embeds       float32 [batch, sequence, hidden]   token embeddings, looked up
 *                                        outside the graph (onnx/model_q4.embeddings)
 *            position_ids        int64   [batch, sequence]           RoPE positions
 *            attention_bias      float32 [batch, 1, sequence, capacity + sequence]
 *                                        0 where a query may attend, −∞ elsewhere (see attentionGraph.ts)
 *            logits_positions    int64   [batch, rows]               which of this call's positions get logits
 *            cache.N.key/value   float32 [batch, kv_heads, capacity, head_dim]  earlier keys/values, read only
 *   outputs  logits              float32 [batch, rows, vocab]
 *            new_cache           float32 [batch, sequence, 2·layers·kv_heads·head_dim]  this call's
 *                                        keys (rotated) and values, layer by layer (the key heads, then
 *                                        the value heads), for the caller to append to its cache
 */
import type { BlockQuantized } from './blockCodecs';
import type { GraphBuilder } from './graphBuilder';
import type { Hyperparameters } from './hyperparameters';
import { LinearEmitter, stackRows, type LinearWeight } from './linearLayer';
import { DataType } from './onnxProto';
import { attention, ATTENTION_INPUTS, cacheKey, cacheValue } from './attentionGraph';

/** Reads one tensor of the GGUF, carried over (weights) or as floats (norms, biases). */
export interface WeightSource {
  linear(name: string): LinearWeight;
  vector(name: string): Float32Array;
  has(name: string): boolean;
}

export const NEW_CACHE = 'new_cache';
export const GRAPH_INPUTS = {
  embeds: 'inputs_embeds',
  logitsPositions: 'logits_positions',
  ...ATTENTION_INPUTS,
} as const;

/** cos/sin tables [positions, headDim/2] computed in float32 step by step as ggml's rope does. */
export function ropeTables(hp: Hyperparameters, positions: number): { cos: Float32Array; sin: Float32Array } {
  const half = hp.headDim / 2;
  const cos = new Float32Array(positions * half);
  const sin = new Float32Array(positions * half);
  const thetaScale = Math.fround(Math.pow(Math.fround(hp.ropeTheta), Math.fround(-2 / hp.headDim)));
  for (let p = 0; p < positions; p++) {
    let theta = Math.fround(p);
    for (let i = 0; i < half; i++) {
      cos[p * half + i] = Math.cos(theta);
      sin[p * half + i] = Math.sin(theta);
      theta = Math.fround(theta * thetaScale);
    }
  }
  return { cos, sin };
}

/** Called after each layer; the build waits for it (so a caller can yield or abort). */
export type DecoderProgress = (layer: number, layers: number) => Promise<void>;

export async function buildDecoderGraph(
  g: GraphBuilder,
  hp: Hyperparameters,
  weights: WeightSource,
  accuracyLevel: number,
  progress: DecoderProgress,
): Promise<void> {
  const linear = new LinearEmitter(g, accuracyLevel);
  const embedded = g.input(GRAPH_INPUTS.embeds, DataType.FLOAT, ['batch', 'sequence', hp.hidden]);
  g.input(GRAPH_INPUTS.positions, DataType.INT64, ['batch', 'sequence']);
  g.input(GRAPH_INPUTS.bias, DataType.FLOAT, ['batch', 1, 'query_rows', 'key_columns']);
  const logitsPositions = g.input(GRAPH_INPUTS.logitsPositions, DataType.INT64, ['batch', 'logits_rows']);
  const cacheDims = ['batch', hp.kvHeads, 'capacity', hp.headDim];
  for (let l = 0; l < hp.layers; l++) {
    g.input(cacheKey(l), DataType.FLOAT, cacheDims);
    g.input(cacheValue(l), DataType.FLOAT, cacheDims);
  }

  const { cos, sin } = ropeTables(hp, hp.contextLength);
  const rope = {
    cos: g.floats('rope.cos', [hp.contextLength, hp.headDim / 2], cos),
    sin: g.floats('rope.sin', [hp.contextLength, hp.headDim / 2], sin),
  };
  const fresh: string[] = [];

  const eps = { float: hp.rmsEpsilon };
  let [normed] = g.op(
    'RMSNormalization',
    [embedded, g.floats('blk.0.attn_norm.weight', [hp.hidden], weights.vector('blk.0.attn_norm.weight'))],
    {
      name: 'blk.0/attn_norm',
      attributes: { axis: -1, epsilon: eps },
    },
  );
  let residual = embedded;

  for (let l = 0; l < hp.layers; l++) {
    const p = `blk.${l}`;
    const attended = attentionBlock(g, linear, weights, hp, l, normed, rope, fresh);
    const [ffnIn, , , afterAttention] = g.op(
      'SkipSimplifiedLayerNormalization',
      [
        attended,
        residual,
        g.floats(`${p}.ffn_norm.weight`, [hp.hidden], weights.vector(`${p}.ffn_norm.weight`)),
      ],
      { domain: 'com.microsoft', name: `${p}/ffn_norm`, outputs: 4, attributes: { epsilon: eps } },
    );
    const [gate, up] = gateAndUp(g, linear, weights, hp, p, ffnIn);
    const [sigmoid] = g.op('Sigmoid', [gate], { name: `${p}/silu_sigmoid` });
    const [silu] = g.op('Mul', [gate, sigmoid], { name: `${p}/silu` });
    const [act] = g.op('Mul', [silu, up], { name: `${p}/swiglu` });
    const down = linear.emit(act, weights.linear(`${p}.ffn_down.weight`), `${p}.ffn_down`);
    const nextNorm = l + 1 < hp.layers ? `blk.${l + 1}.attn_norm.weight` : 'output_norm.weight';
    [normed, , , residual] = g.op(
      'SkipSimplifiedLayerNormalization',
      [down, afterAttention, g.floats(nextNorm, [hp.hidden], weights.vector(nextNorm))],
      {
        domain: 'com.microsoft',
        name: l + 1 < hp.layers ? `blk.${l + 1}/attn_norm` : 'output_norm',
        outputs: 4,
        attributes: { epsilon: eps },
      },
    );
    await progress(l + 1, hp.layers);
  }

  // Only the rows asked for reach the output projection: during generation that is one position
  // per sequence, which saves a [sequence × vocab] matmul on every prompt.
  const [positions3] = g.op('Unsqueeze', [logitsPositions, g.int64s([-1])], { name: 'logits/positions' });
  const [selected] = g.op('GatherND', [normed, positions3], {
    name: 'logits/select',
    attributes: { batch_dims: 1 },
  });
  const outputWeight = weights.linear(hp.tiedEmbeddings ? 'token_embd.weight' : 'output.weight');
  const logits = linear.emit(selected, outputWeight, 'output');
  renameOutput(g, logits, 'logits');
  g.output('logits', DataType.FLOAT, ['batch', 'logits_rows', hp.vocabSize]);
  // One output for every layer's new keys and values: each output costs onnxruntime-node a
  // conversion (measured: 60 outputs 360 µs per call, one 150 µs).
  g.op('Concat', fresh, { name: 'new_cache', outputs: [NEW_CACHE], attributes: { axis: -1 } });
  g.output(NEW_CACHE, DataType.FLOAT, ['batch', 'sequence', 2 * hp.layers * hp.kvHeads * hp.headDim]);
}

/** Renames a node output (the logits) to the graph output name. */
function renameOutput(g: GraphBuilder, from: string, to: string): void {
  for (const node of g.nodes) node.outputs = node.outputs.map((o) => (o === from ? to : o));
}

function attentionBlock(
  g: GraphBuilder,
  linear: LinearEmitter,
  weights: WeightSource,
  hp: Hyperparameters,
  l: number,
  normed: string,
  rope: { cos: string; sin: string },
  fresh: string[],
): string {
  const p = `blk.${l}`;
  const names = ['attn_q', 'attn_k', 'attn_v'];
  const parts = names.map((t) => weights.linear(`${p}.${t}.weight`));
  const biases = hp.attentionBias ? names.map((t) => weights.vector(`${p}.${t}.bias`)) : undefined;
  const blocks = parts.every((w) => w.kind === 'blocks')
    ? stackRows(parts.map((w) => (w as { blocks: BlockQuantized }).blocks))
    : undefined;
  let qkv: string;
  if (blocks) {
    // One matmul for q, k and v over the same input.
    const bias = biases ? concat(biases) : undefined;
    qkv = linear.emit(normed, { kind: 'blocks', blocks }, `${p}.attn_qkv`, { bias });
  } else {
    const projected = parts.map((w, i) => linear.emit(normed, w, `${p}.${names[i]}`, { bias: biases?.[i] }));
    [qkv] = g.op('Concat', projected, { name: `${p}/qkv`, attributes: { axis: -1 } });
  }
  const { out, keys, values } = attention(g, hp, l, qkv, rope);
  fresh.push(keys, values);
  return linear.emit(out, weights.linear(`${p}.attn_output.weight`), `${p}.attn_output`);
}

/**
 * The gate and up projections, as one matmul over their stacked rows when their blocks have the
 * same form (one pass over the input, one offset correction), split afterwards.
 */
function gateAndUp(
  g: GraphBuilder,
  linear: LinearEmitter,
  weights: WeightSource,
  hp: Hyperparameters,
  p: string,
  input: string,
): [string, string] {
  const gate = weights.linear(`${p}.ffn_gate.weight`);
  const up = weights.linear(`${p}.ffn_up.weight`);
  const stacked =
    gate.kind === 'blocks' && up.kind === 'blocks' ? stackRows([gate.blocks, up.blocks]) : undefined;
  if (!stacked) return [linear.emit(input, gate, `${p}.ffn_gate`), linear.emit(input, up, `${p}.ffn_up`)];
  const both = linear.emit(input, { kind: 'blocks', blocks: stacked }, `${p}.ffn_gate_up`);
  const [g0, u0] = g.op('Split', [both, g.int64s([hp.intermediate, hp.intermediate])], {
    name: `${p}/ffn_split`,
    outputs: 2,
    attributes: { axis: -1 },
  });
  return [g0, u0];
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
