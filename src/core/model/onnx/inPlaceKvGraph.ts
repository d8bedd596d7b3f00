/**
 * The caller-owned-cache graph convention (models converted from GGUF; the interface is described
 * in src/core/model/gguf/decoderGraph.ts). Positions are the caller's padded columns as they are:
 * the attention bias built here masks padding, unused capacity and the future; token embeddings
 * are looked up from the folder's table; the new keys and values the graph returns are written into
 * the cache buffers, which the next call feeds back without a copy.
 */
import * as ort from 'onnxruntime-node';
import { ModelError } from '../types';
import type { ForwardInput, ForwardOutput, GraphRunner } from './forward';
import { EmbeddingTable } from './embeddingTable';
import { grownCapacity, growBuffers, InPlaceKvCache } from './kvCache';
import type { ModelShape } from './modelFolder';
import { forwardInChunks, PREFILL_CHUNK, wantedPositions } from './prefillChunks';

/** Capacity grows in steps of this many positions, so buffers are seldom reallocated. */
const CAPACITY_STEP = 64;

const shapeHint =
  'The converted ONNX graph and config.json in this folder do not belong together: convert the GGUF again.';

export class InPlaceKvGraph implements GraphRunner {
  private readonly embeddings: EmbeddingTable;

  constructor(
    private readonly session: ort.InferenceSession,
    private readonly shape: ModelShape,
    modelFile: string,
  ) {
    checkGraph(session, shape);
    this.embeddings = EmbeddingTable.open(modelFile.replace(/\.onnx$/, '') + '.embeddings');
  }

  static recognises(session: ort.InferenceSession): boolean {
    return session.inputNames.includes('attention_bias') && session.inputNames.includes('cache.0.key');
  }

  release(): void {
    this.embeddings.close();
  }

  /** A call longer than PREFILL_CHUNK positions runs as chunks (prefillChunks.ts), one pass each. */
  forward(input: ForwardInput): Promise<ForwardOutput> {
    if (input.seq <= PREFILL_CHUNK) return this.forwardOnce(input);
    // The first chunk makes room for the whole call, so that the buffers are allocated once.
    const columns = input.mask.length / input.batch;
    return forwardInChunks(input, PREFILL_CHUNK, (chunk) => this.forwardOnce(chunk, columns));
  }

  /** `reserve`: the cache capacity to grow to, when it must grow, for the rest of a chunked call. */
  private async forwardOnce(input: ForwardInput, reserve = 0): Promise<ForwardOutput> {
    const { batch, seq } = input;
    if (input.past && !(input.past instanceof InPlaceKvCache)) {
      throw new ModelError(
        'This graph was given a KV cache of another graph.',
        'internal',
        'Pass back the cache forward() returned.',
      );
    }
    const past = input.past;
    const pastColumns = past?.length ?? 0;
    const columns = pastColumns + seq;
    if (
      input.mask.length !== batch * columns ||
      input.ids.length !== batch * seq ||
      input.positions.length !== batch * seq
    ) {
      throw new ModelError(
        'forward() was given ids, positions or a mask of the wrong size.',
        'internal',
        'mask is [batch, past + seq], ids and positions [batch, seq].',
      );
    }
    if (past && past.batch !== batch) {
      throw new ModelError(
        `The cache holds ${past.batch} rows, not ${batch}.`,
        'internal',
        'Keep the batch of the first call.',
      );
    }
    const { layers, kvHeads, headDim } = this.shape;
    const rows = batch * kvHeads;

    // The buffers must take this call's keys after it; the graph reads only the first pastColumns.
    let buffers = past?.takeBuffers();
    let capacity = past?.capacity ?? 0;
    if (columns > capacity) {
      const grown = grownCapacity(columns, capacity, CAPACITY_STEP, reserve);
      buffers = growBuffers(buffers, capacity, pastColumns, rows, headDim, grown, 2 * layers);
      capacity = grown;
    }
    // A first call has nothing to read: one masked column stands in for the empty cache.
    const readColumns = pastColumns === 0 ? 1 : capacity;
    const cacheTensor = (i: number) =>
      pastColumns === 0
        ? new ort.Tensor('float32', new Float32Array(rows * headDim), [batch, kvHeads, 1, headDim])
        : new ort.Tensor('float32', buffers![i], [batch, kvHeads, capacity, headDim]);

    const masks = Array.from({ length: batch }, (_, b) => [
      ...(past?.masks[b] ?? []),
      ...input.mask.slice(b * columns + pastColumns, (b + 1) * columns),
    ]);
    const wanted = wantedPositions(input);
    const rowsOut = wanted[0].length;
    const positions = new BigInt64Array(batch * rowsOut);
    for (let b = 0; b < batch; b++)
      for (let r = 0; r < rowsOut; r++) positions[b * rowsOut + r] = BigInt(wanted[b][r]);

    const feeds: Record<string, ort.Tensor> = {
      inputs_embeds: new ort.Tensor('float32', this.embeddings.lookup(input.ids), [
        batch,
        seq,
        this.embeddings.info.cols,
      ]),
      position_ids: new ort.Tensor(
        'int64',
        BigInt64Array.from(input.positions, (p) => BigInt(p)),
        [batch, seq],
      ),
      attention_bias: new ort.Tensor('float32', attentionBias(masks, pastColumns, seq, readColumns), [
        batch,
        1,
        seq,
        readColumns + seq,
      ]),
      logits_positions: new ort.Tensor('int64', positions, [batch, rowsOut]),
    };
    for (let l = 0; l < layers; l++) {
      feeds[`cache.${l}.key`] = cacheTensor(2 * l);
      feeds[`cache.${l}.value`] = cacheTensor(2 * l + 1);
    }
    const out = await this.session.run(feeds);
    // new_cache is [batch, seq, 2·layers·kvHeads·headDim]: buffer i, head h of position s of row b
    // starts at ((b·seq + s)·2·layers + i)·kvHeads·headDim + h·headDim.
    const fresh = out.new_cache.data as Float32Array;
    const perBuffer = kvHeads * headDim;
    for (let b = 0; b < batch; b++)
      for (let s = 0; s < seq; s++) {
        const from = (b * seq + s) * 2 * layers * perBuffer;
        for (let i = 0; i < 2 * layers; i++) {
          const buffer = buffers![i];
          for (let h = 0; h < kvHeads; h++) {
            const at = from + i * perBuffer + h * headDim;
            buffer.set(
              fresh.subarray(at, at + headDim),
              ((b * kvHeads + h) * capacity + pastColumns + s) * headDim,
            );
          }
        }
      }
    const logits = out.logits;
    return {
      logits: logits.data as Float32Array,
      vocab: logits.dims[2],
      rows: rowsOut,
      present: new InPlaceKvCache(buffers!, capacity, masks),
    };
  }
}

/**
 * [batch, 1, seq, readColumns + seq]: query i of this call may see cached column t when
 * t < pastColumns and the caller marked it real, and new position j when j < i is real or j = i
 * (itself, so that a padding query still has one finite score).
 */
function attentionBias(
  masks: number[][],
  pastColumns: number,
  seq: number,
  readColumns: number,
): Float32Array {
  const width = readColumns + seq;
  const bias = new Float32Array(masks.length * seq * width).fill(-Infinity);
  masks.forEach((mask, b) => {
    for (let i = 0; i < seq; i++) {
      const row = (b * seq + i) * width;
      for (let t = 0; t < pastColumns; t++) if (mask[t] === 1) bias[row + t] = 0;
      for (let j = 0; j < i; j++) if (mask[pastColumns + j] === 1) bias[row + readColumns + j] = 0;
      bias[row + readColumns + i] = 0;
    }
  });
  return bias;
}

function checkGraph(session: ort.InferenceSession, shape: ModelShape): void {
  const required = ['inputs_embeds', 'position_ids', 'attention_bias', 'logits_positions'];
  const outputs = ['logits', 'new_cache'];
  for (let l = 0; l < shape.layers; l++) required.push(`cache.${l}.key`, `cache.${l}.value`);
  const missing = [
    ...required.filter((n) => !session.inputNames.includes(n)),
    ...outputs.filter((n) => !session.outputNames.includes(n)),
  ];
  if (missing.length > 0) {
    throw new ModelError(
      `The ONNX graph lacks ${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', …' : ''}.`,
      'model-shape',
      shapeHint,
    );
  }
  const extra = session.inputNames.filter((n) => !required.includes(n));
  if (extra.length > 0) {
    throw new ModelError(
      `The ONNX graph has inputs this backend does not feed: ${extra.join(', ')}.`,
      'model-shape',
      shapeHint,
    );
  }
  for (const meta of session.inputMetadata) {
    if (!meta.name.startsWith('cache.') || !meta.isTensor) continue;
    const [, heads, , dim] = meta.shape;
    if (meta.type !== 'float32' || heads !== shape.kvHeads || dim !== shape.headDim) {
      throw new ModelError(
        `${meta.name} is ${meta.type} [${meta.shape.join(', ')}] but config.json implies float32 [batch, ${shape.kvHeads}, capacity, ${shape.headDim}].`,
        'model-shape',
        shapeHint,
      );
    }
  }
}
