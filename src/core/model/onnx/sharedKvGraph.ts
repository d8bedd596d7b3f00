/**
 * The shared-KV-buffer graph convention (models converted from GGUF; see
 * src/core/model/gguf/decoderGraph.ts for the interface). The caller keeps speaking in its padded
 * layout (left-padded rows, a mask over every position fed); here each row's real tokens are
 * moved to the left, GroupQueryAttention is told each row's length, and the logits come back in
 * the caller's layout: the last real position of every row, or every position when asked.
 */
import * as ort from 'onnxruntime-node';
import { ModelError } from '../types';
import type { ForwardInput, ForwardOutput, GraphRunner } from './causalLmSession';
import { EmbeddingTable } from './embeddingTable';
import { SharedKvCache, sharedBuffers } from './kvCache';
import type { ModelShape } from './modelFolder';

/** Capacity grows in steps of this many positions (and at least doubles), so buffers are rarely copied. */
const CAPACITY_STEP = 256;

const shapeHint =
  'The converted ONNX graph and config.json in this folder do not belong together: convert the GGUF again.';

export class SharedKvGraph implements GraphRunner {
  private readonly embeddings: EmbeddingTable;

  constructor(
    private readonly session: ort.InferenceSession,
    private readonly shape: ModelShape,
    modelFile: string,
  ) {
    checkGraph(session, shape);
    this.embeddings = EmbeddingTable.open(embeddingTableFor(modelFile));
    const hidden = session.inputMetadata.find((m) => m.name === 'inputs_embeds');
    const width = hidden?.isTensor ? hidden.shape[2] : undefined;
    if (width !== this.embeddings.info.cols) {
      this.embeddings.close();
      throw new ModelError(
        `The embedding table has rows of ${this.embeddings.info.cols}, the graph takes ${String(width)}.`,
        'model-shape',
        shapeHint,
      );
    }
  }

  release(): void {
    this.embeddings.close();
  }

  static recognises(session: ort.InferenceSession): boolean {
    return session.inputNames.includes('seqlens_k');
  }

  async forward(input: ForwardInput): Promise<ForwardOutput> {
    const { batch, seq } = input;
    if (input.past && !(input.past instanceof SharedKvCache)) {
      throw new ModelError(
        'This graph was given a KV cache of another graph.',
        'internal',
        'Pass back the cache forward() returned.',
      );
    }
    const past = input.past;
    const pastColumns = past?.length ?? 0;
    const columns = pastColumns + seq;
    if (input.mask.length !== batch * columns || input.ids.length !== batch * seq) {
      throw new ModelError(
        'forward() was given ids or a mask of the wrong size.',
        'internal',
        'mask is [batch, past + seq], ids [batch, seq].',
      );
    }
    if (past && past.batch !== batch) {
      throw new ModelError(
        `The cache holds ${past.batch} rows, not ${batch}.`,
        'internal',
        'Keep the batch of the first call.',
      );
    }

    // Each row's new real tokens, in order, and where the caller had them.
    const newIds: number[][] = [];
    const callerColumn: number[][] = [];
    const masks: number[][] = [];
    for (let b = 0; b < batch; b++) {
      const rowMask = input.mask.slice(b * columns, (b + 1) * columns);
      const ids: number[] = [];
      const at: number[] = [];
      for (let j = 0; j < seq; j++) {
        if (rowMask[pastColumns + j] === 1) {
          ids.push(input.ids[b * seq + j]);
          at.push(j);
        }
      }
      if (ids.length === 0)
        throw new ModelError(
          `Row ${b} has no token to feed.`,
          'internal',
          'Feed at least one real token per row.',
        );
      newIds.push(ids);
      callerColumn.push(at);
      masks.push(past ? [...past.masks[b], ...rowMask.slice(pastColumns)] : rowMask);
    }
    const pastLengths = Array.from({ length: batch }, (_, b) => past?.rowLength(b) ?? 0);
    const fresh = pastLengths.every((n) => n === 0);
    const width = Math.max(...newIds.map((r) => r.length));
    // GroupQueryAttention takes rows of different lengths only in a first prompt; afterwards every
    // row must add the same number of tokens (as in decoding, one each).
    if (!fresh && newIds.some((r) => r.length !== width)) {
      throw new ModelError(
        'After the first call, every row must add the same number of tokens.',
        'internal',
        'Feed the rows one token at a time, or in separate caches.',
      );
    }
    const totals = pastLengths.map((n, b) => n + newIds[b].length);
    const totalLength = Math.max(...totals);

    let buffers = past?.takeBuffers();
    const capacity = buffers?.[0].dims[2] ?? 0;
    if (totalLength > capacity) {
      const grown = Math.ceil(Math.max(totalLength, 2 * capacity) / CAPACITY_STEP) * CAPACITY_STEP;
      buffers = sharedBuffers(
        this.shape.layers,
        this.shape.kvHeads,
        this.shape.headDim,
        batch,
        grown,
        buffers,
      );
    }

    const rows = input.allLogits ? seq : 1;
    const positions = new BigInt64Array(batch * rows);
    for (let b = 0; b < batch; b++) {
      if (input.allLogits) {
        // Padded caller positions get some real row's logits; the caller ignores them.
        callerColumn[b].forEach((j, k) => (positions[b * rows + j] = BigInt(k)));
      } else {
        positions[b] = BigInt(newIds[b].length - 1);
      }
    }
    // Right padding repeats a row's last token; its positions are never read.
    const hidden = this.embeddings.info.cols;
    const embeds = new Float32Array(batch * width * hidden);
    newIds.forEach((r, b) => {
      const padded = [...r, ...new Array<number>(width - r.length).fill(r[r.length - 1])];
      embeds.set(this.embeddings.lookup(padded), b * width * hidden);
    });

    const feeds: Record<string, ort.Tensor> = {
      inputs_embeds: new ort.Tensor('float32', embeds, [batch, width, hidden]),
      seqlens_k: new ort.Tensor(
        'int32',
        Int32Array.from(totals, (t) => t - 1),
        [batch],
      ),
      total_sequence_length: new ort.Tensor('int32', Int32Array.of(totalLength), []),
      logits_positions: new ort.Tensor('int64', positions, [batch, rows]),
    };
    const fetches: Record<string, ort.Tensor | null> = { logits: null };
    for (let l = 0; l < this.shape.layers; l++) {
      // The same tensors as input and output: onnxruntime sees one buffer and appends in place.
      feeds[`past_key_values.${l}.key`] = fetches[`present.${l}.key`] = buffers![2 * l];
      feeds[`past_key_values.${l}.value`] = fetches[`present.${l}.value`] = buffers![2 * l + 1];
    }
    const out = await this.session.run(feeds, fetches);
    const logits = out.logits;
    return {
      logits: logits.data as Float32Array,
      vocab: logits.dims[2],
      rows,
      present: new SharedKvCache(buffers!, masks),
    };
  }
}

/** The converter writes onnx/<graph>.embeddings beside onnx/<graph>.onnx. */
function embeddingTableFor(modelFile: string): string {
  return modelFile.replace(/\.onnx$/, '') + '.embeddings';
}

function checkGraph(session: ort.InferenceSession, shape: ModelShape): void {
  const inputs = new Set(session.inputNames);
  const outputs = new Set(session.outputNames);
  const required = ['inputs_embeds', 'seqlens_k', 'total_sequence_length', 'logits_positions'];
  for (let l = 0; l < shape.layers; l++)
    required.push(`past_key_values.${l}.key`, `past_key_values.${l}.value`);
  const missing = required.filter((n) => !inputs.has(n));
  const missingOut = ['logits'];
  for (let l = 0; l < shape.layers; l++) missingOut.push(`present.${l}.key`, `present.${l}.value`);
  missing.push(...missingOut.filter((n) => !outputs.has(n)));
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
    if (!meta.name.startsWith('past_key_values.') || !meta.isTensor) continue;
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
