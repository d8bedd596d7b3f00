/**
 * The decoder graph of a Llama-style model (llama, qwen2) as llama.cpp computes it, from GGUF
 * tensors carried over block for block.
 *
 * Interface (the "shared KV buffer" convention; CausalLmSession speaks it):
 *   inputs   inputs_embeds               float32 [batch, sequence, hidden]  token embeddings, looked
 *                                                up outside the graph (onnx/embeddings.bin)
 *            seqlens_k                   int32  [batch]     tokens in the cache after this call, minus 1
 *            total_sequence_length       int32  scalar      the largest of seqlens_k + 1
 *            logits_positions            int64  [batch, rows] which of this call's positions get logits
 *            past_key_values.N.key/value float32 [batch, kv_heads, capacity, head_dim]
 *   outputs  logits                      float32 [batch, rows, vocab]
 *            present.N.key/value         float32 [batch, kv_heads, capacity, head_dim]
 * Each row's tokens are left-aligned (right padding). GroupQueryAttention writes the new keys and
 * values at positions seqlens_k − sequence + 1 … seqlens_k of each row and rotates q/k itself
 * (RoPE at those positions); when present.N is bound to the same buffer as past_key_values.N the
 * cache is updated in place.
 */
import type { BlockQuantized } from './blockCodecs';
import type { GraphBuilder } from './graphBuilder';
import type { Hyperparameters } from './hyperparameters';
import { LinearEmitter, stackRows, type LinearWeight } from './linearLayer';
import { DataType } from './onnxProto';

/** Reads one tensor of the GGUF, carried over (weights) or as floats (norms, biases). */
export interface WeightSource {
  linear(name: string): LinearWeight;
  vector(name: string): Float32Array;
  has(name: string): boolean;
}

export const GRAPH_INPUTS = {
  embeds: 'inputs_embeds',
  seqlens: 'seqlens_k',
  totalLength: 'total_sequence_length',
  logitsPositions: 'logits_positions',
} as const;
export const pastKey = (layer: number) => `past_key_values.${layer}.key`;
export const pastValue = (layer: number) => `past_key_values.${layer}.value`;
export const presentKey = (layer: number) => `present.${layer}.key`;
export const presentValue = (layer: number) => `present.${layer}.value`;

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
  const seqlens = g.input(GRAPH_INPUTS.seqlens, DataType.INT32, ['batch']);
  const totalLength = g.input(GRAPH_INPUTS.totalLength, DataType.INT32, []);
  const logitsPositions = g.input(GRAPH_INPUTS.logitsPositions, DataType.INT64, ['batch', 'logits_rows']);
  const cacheDims = ['batch', hp.kvHeads, 'capacity', hp.headDim];
  for (let l = 0; l < hp.layers; l++) {
    g.input(pastKey(l), DataType.FLOAT, cacheDims);
    g.input(pastValue(l), DataType.FLOAT, cacheDims);
  }

  const { cos, sin } = ropeTables(hp, hp.contextLength);
  const cosCache = g.floats('rope.cos', [hp.contextLength, hp.headDim / 2], cos);
  const sinCache = g.floats('rope.sin', [hp.contextLength, hp.headDim / 2], sin);

  const eps = { float: hp.rmsEpsilon };
  let [normed] = g.op(
    'SimplifiedLayerNormalization',
    [embedded, g.floats('blk.0.attn_norm.weight', [hp.hidden], weights.vector('blk.0.attn_norm.weight'))],
    {
      name: 'blk.0/attn_norm',
      attributes: { axis: -1, epsilon: eps, stash_type: 1 },
    },
  );
  let residual = embedded;

  for (let l = 0; l < hp.layers; l++) {
    const p = `blk.${l}`;
    const attention = attentionBlock(g, linear, weights, hp, l, normed, {
      seqlens,
      totalLength,
      cosCache,
      sinCache,
    });
    const [ffnIn, , , afterAttention] = g.op(
      'SkipSimplifiedLayerNormalization',
      [
        attention,
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
  for (let l = 0; l < hp.layers; l++) {
    g.output(presentKey(l), DataType.FLOAT, cacheDims);
    g.output(presentValue(l), DataType.FLOAT, cacheDims);
  }
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
  shared: { seqlens: string; totalLength: string; cosCache: string; sinCache: string },
): string {
  const p = `blk.${l}`;
  const parts = ['attn_q', 'attn_k', 'attn_v'].map((t) => weights.linear(`${p}.${t}.weight`));
  const biases = hp.attentionBias
    ? ['attn_q', 'attn_k', 'attn_v'].map((t) => weights.vector(`${p}.${t}.bias`))
    : undefined;
  const blocks = parts.every((w) => w.kind === 'blocks')
    ? stackRows(parts.map((w) => (w as { blocks: BlockQuantized }).blocks))
    : undefined;
  let qkvInputs: string[];
  if (blocks) {
    // One matmul for q, k and v; GroupQueryAttention takes the packed result as its query.
    const bias = biases ? concat(biases) : undefined;
    qkvInputs = [linear.emit(normed, { kind: 'blocks', blocks }, `${p}.attn_qkv`, { bias }), '', ''];
  } else {
    qkvInputs = parts.map((w, i) =>
      linear.emit(normed, w, `${p}.${['attn_q', 'attn_k', 'attn_v'][i]}`, { bias: biases?.[i] }),
    );
  }
  const [attention] = g.op(
    'GroupQueryAttention',
    [
      ...qkvInputs,
      pastKey(l),
      pastValue(l),
      shared.seqlens,
      shared.totalLength,
      shared.cosCache,
      shared.sinCache,
    ],
    {
      domain: 'com.microsoft',
      name: `${p}/attention`,
      outputs: [`${p}/attention/out`, presentKey(l), presentValue(l)],
      attributes: {
        num_heads: hp.heads,
        kv_num_heads: hp.kvHeads,
        do_rotary: 1,
        rotary_interleaved: hp.ropeInterleaved ? 1 : 0,
      },
    },
  );
  return linear.emit(attention, weights.linear(`${p}.attn_output.weight`), `${p}.attn_output`);
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
