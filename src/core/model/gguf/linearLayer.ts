/**
 * Emits y = x·Wᵀ (+ bias) for a weight carried over from ggml blocks.
 *
 * MatMulNBits computes Σ_k x_k · s_b·(q_k − zp) with an integer zero point. ggml's types with a
 * per-block minimum (Q4_1, Q5_1, Q4_K, Q5_K) have w = s_b·q_k + c_b with a float c_b, which no
 * integer zero point expresses exactly (a float zero point sends onnxruntime to a path that
 * dequantizes the whole matrix on every call). So the offset term is computed on its own:
 *
 *     Σ_k x_k·w_k = MatMulNBits(x) + Σ_b (Σ_{k∈b} x_k) · c_b
 *
 * i.e. the block sums of x times a [blocks, N] float matrix: exact, and small next to the codes.
 */
import { packCodes, packZeroPoints, type BlockQuantized } from './blockCodecs';
import { DataType } from './onnxProto';
import type { GraphBuilder } from './graphBuilder';

export type LinearWeight =
  | { kind: 'blocks'; blocks: BlockQuantized }
  | { kind: 'float'; rows: number; cols: number; values: Float32Array };

/** onnxruntime's MatMulNBits accuracy level 4: activations quantized to int8 per block (as llama.cpp does). */
export const ACCURACY_INT8 = 4;

/** Above this many rows a matrix is split into several matmuls (see chunkedMatMul). */
const MAX_ROWS_PER_MATMUL = 16384;

export class LinearEmitter {
  /** Block sums already computed, by `${input}|${blockSize}`. */
  private readonly blockSums = new Map<string, string>();

  constructor(
    private readonly g: GraphBuilder,
    /** MatMulNBits accuracy_level: 4 (int8 activations) for speed; 0 keeps them in float. */
    private readonly accuracyLevel = ACCURACY_INT8,
  ) {}

  emit(input: string, weight: LinearWeight, name: string, options: { bias?: Float32Array } = {}): string {
    const { bias } = options;
    let y =
      weight.kind === 'float'
        ? this.floatMatMul(input, weight, name)
        : weight.blocks.rows > MAX_ROWS_PER_MATMUL
          ? this.chunkedMatMul(input, weight.blocks, name)
          : this.blockMatMul(input, weight.blocks, name);
    if (bias)
      y = this.g.op('Add', [y, this.g.floats(`${name}.bias`, [bias.length], bias)], {
        name: `${name}/bias`,
      })[0];
    return y;
  }

  /**
   * A matrix with very many rows (the output projection over a 150k vocabulary) as several
   * matmuls over row ranges, concatenated. onnxruntime packs each weight while the raw one is still
   * mapped; one 136 MB matrix meant 130 MB more peak memory at load, a chunk only a few.
   */
  private chunkedMatMul(input: string, q: BlockQuantized, name: string): string {
    const parts: string[] = [];
    for (let from = 0, i = 0; from < q.rows; from += MAX_ROWS_PER_MATMUL, i++) {
      parts.push(
        this.blockMatMul(
          input,
          sliceRows(q, from, Math.min(q.rows, from + MAX_ROWS_PER_MATMUL)),
          `${name}.part${i}`,
        ),
      );
    }
    return this.g.op('Concat', parts, { name, attributes: { axis: -1 } })[0];
  }

  private blockMatMul(input: string, q: BlockQuantized, name: string): string {
    const g = this.g;
    const blocks = q.cols / q.blockSize;
    const inputs = [
      input,
      g.initializer(
        `${name}.codes`,
        DataType.UINT8,
        [q.rows, blocks, (q.blockSize * q.bits) / 8],
        packCodes(q),
      ),
      g.floats(`${name}.scales`, [q.rows * blocks], q.scales),
    ];
    const zp = packZeroPoints(q);
    if (zp) inputs.push(g.initializer(`${name}.zero_points`, DataType.UINT8, [zp.length], zp));
    const [y] = g.op('MatMulNBits', inputs, {
      domain: 'com.microsoft',
      name,
      attributes: {
        K: q.cols,
        N: q.rows,
        bits: q.bits,
        block_size: q.blockSize,
        accuracy_level: this.accuracyLevel,
      },
    });
    if (!q.offsets) return y;
    const offsetsT = transpose(q.offsets, q.rows, blocks);
    const sums = this.blockSum(input, q.cols, q.blockSize);
    const [correction] = g.op(
      'MatMul',
      [sums, g.floats(`${name}.block_offsets`, [blocks, q.rows], offsetsT)],
      {
        name: `${name}/offsets`,
      },
    );
    return g.op('Add', [y, correction], { name: `${name}/add_offsets` })[0];
  }

  /** [..., K] → [..., K / blockSize]: the sum of each block of the input. */
  private blockSum(input: string, cols: number, blockSize: number): string {
    const key = `${input}|${blockSize}`;
    const known = this.blockSums.get(key);
    if (known) return known;
    const g = this.g;
    const [blocked] = g.op('Reshape', [input, g.int64s([0, 0, cols / blockSize, blockSize])], {
      name: 'block_sum/reshape',
    });
    const [sums] = g.op('ReduceSum', [blocked, g.int64s([-1])], {
      name: 'block_sum',
      attributes: { keepdims: 0 },
    });
    this.blockSums.set(key, sums);
    return sums;
  }

  private floatMatMul(
    input: string,
    w: { rows: number; cols: number; values: Float32Array },
    name: string,
  ): string {
    const weightT = transpose(w.values, w.rows, w.cols);
    return this.g.op('MatMul', [input, this.g.floats(`${name}.weight`, [w.cols, w.rows], weightT)], {
      name,
    })[0];
  }
}

/** Rows [from, to) of a block-quantized matrix. */
export function sliceRows(q: BlockQuantized, from: number, to: number): BlockQuantized {
  const blocks = q.cols / q.blockSize;
  return {
    ...q,
    rows: to - from,
    codes: q.codes.subarray(from * q.cols, to * q.cols),
    scales: q.scales.subarray(from * blocks, to * blocks),
    blockZeroPoints: q.blockZeroPoints?.subarray(from * blocks, to * blocks),
    offsets: q.offsets?.subarray(from * blocks, to * blocks),
  };
}

/** Row-major [rows, cols] → [cols, rows]. */
export function transpose(values: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(values.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = values[r * cols + c];
  return out;
}

/** Stacks weights with the same block form along their rows (output features), for one fused matmul. */
export function stackRows(parts: BlockQuantized[]): BlockQuantized | undefined {
  const first = parts[0];
  const sameForm = parts.every(
    (p) =>
      p.bits === first.bits &&
      p.blockSize === first.blockSize &&
      p.zeroPoint === first.zeroPoint &&
      p.cols === first.cols,
  );
  if (!sameForm) return undefined;
  const rows = parts.reduce((s, p) => s + p.rows, 0);
  const blocks = first.cols / first.blockSize;
  const codes = new Uint8Array(rows * first.cols);
  const scales = new Float32Array(rows * blocks);
  const anyOffsets = parts.some((p) => p.offsets);
  const offsets = anyOffsets ? new Float32Array(rows * blocks) : undefined;
  const anyBlockZeroPoints = parts.some((p) => p.blockZeroPoints);
  const blockZeroPoints = anyBlockZeroPoints ? new Uint8Array(rows * blocks) : undefined;
  let row = 0;
  for (const p of parts) {
    codes.set(p.codes, row * first.cols);
    scales.set(p.scales, row * blocks);
    if (offsets && p.offsets) offsets.set(p.offsets, row * blocks);
    if (blockZeroPoints) {
      if (p.blockZeroPoints) blockZeroPoints.set(p.blockZeroPoints, row * blocks);
      else blockZeroPoints.fill(p.zeroPoint, row * blocks, (row + p.rows) * blocks);
    }
    row += p.rows;
  }
  return { ...first, rows, codes, scales, offsets, blockZeroPoints };
}
