/**
 * Carries ggml quantized blocks over, without rounding anything, into the form onnxruntime's
 * MatMulNBits and GatherBlockQuantized read: per block of `blockSize` weights along a row, unsigned
 * `bits`-bit codes q, a float scale s and a float offset c, with
 *
 *     w = s · (q − zeroPoint) + c
 *
 * (c = 0 for the symmetric types). What each ggml block holds, element by element, follows
 * ggml-quants.c's reference dequantization:
 *
 *   Q4_0  d·(q−8)                 q 4-bit, blocks of 32
 *   Q4_1  d·q + m                 q 4-bit
 *   Q5_0  d·(q−16)                q 5-bit (low nibbles + one bit from qh)
 *   Q5_1  d·q + m                 q 5-bit
 *   Q8_0  d·q                     q int8
 *   Q4_K  d·sc·q − dmin·mn        q 4-bit, 8 sub-blocks of 32 per super-block of 256, 6-bit sc/mn
 *   Q5_K  d·sc·q − dmin·mn        q 5-bit, same sub-blocks
 *   Q6_K  d·sc·(q−32)             q 6-bit, 16 sub-blocks of 16, int8 sc
 *
 * 5- and 6-bit codes are stored in 8 bits (onnxruntime has 2-, 4- and 8-bit kernels only), shifted
 * so that the zero point is the 8-bit default 128 where the source is symmetric. Scales are the
 * float products d·sc, exact in float32 (an 11-bit half times a 6- or 8-bit integer).
 */
import { halfToFloat, type GgmlTypeName } from './ggmlTypes';

export interface BlockQuantized {
  bits: 4 | 8;
  blockSize: 16 | 32 | 64 | 128;
  rows: number;
  cols: number;
  /** One code per weight, unpacked, row-major [rows, cols] (packed later for the graph). */
  codes: Uint8Array;
  /** [rows, cols / blockSize] */
  scales: Float32Array;
  /** The zero point of every block, unless `blockZeroPoints` gives one per block. */
  zeroPoint: number;
  /** [rows, cols / blockSize] per-block zero points, or undefined. */
  blockZeroPoints?: Uint8Array;
  /** [rows, cols / blockSize], or undefined when every block's offset is 0. */
  offsets: Float32Array | undefined;
}

/** The ggml types that can be carried over exactly. */
export const QUANTIZED_TYPES: readonly GgmlTypeName[] = [
  'Q4_0',
  'Q4_1',
  'Q5_0',
  'Q5_1',
  'Q8_0',
  'Q4_K',
  'Q5_K',
  'Q6_K',
];

interface Layout {
  bits: 4 | 8;
  blockSize: 16 | 32;
  zeroPoint: number;
  hasOffsets: boolean;
  /** ggml elements and bytes per source block. */
  sourceElements: number;
  sourceBytes: number;
  /**
   * Decodes one source block at `at`: writes its codes from codes[c0], and each sub-block's scale
   * and offset from scales[s0] / offsets[s0].
   */
  decode(
    src: Buffer,
    at: number,
    codes: Uint8Array,
    c0: number,
    scales: Float32Array,
    offsets: Float32Array,
    s0: number,
  ): void;
}

const half = (src: Buffer, at: number) => halfToFloat(src.readUInt16LE(at));

/** 6-bit scale and min of sub-block j from the 12 packed bytes of a Q4_K / Q5_K super-block. */
function scaleMinK4(src: Buffer, at: number, j: number): [number, number] {
  if (j < 4) return [src[at + j] & 63, src[at + j + 4] & 63];
  const sc = (src[at + j + 4] & 0x0f) | ((src[at + j - 4] >> 6) << 4);
  const mn = (src[at + j + 4] >> 4) | ((src[at + j] >> 6) << 4);
  return [sc, mn];
}

const LAYOUTS: Partial<Record<GgmlTypeName, Layout>> = {
  Q4_0: {
    bits: 4,
    blockSize: 32,
    zeroPoint: 8,
    hasOffsets: false,
    sourceElements: 32,
    sourceBytes: 18,
    decode(src, at, codes, c0, scales, _offsets, s0) {
      scales[s0] = half(src, at);
      for (let j = 0; j < 16; j++) {
        const byte = src[at + 2 + j];
        codes[c0 + j] = byte & 0x0f;
        codes[c0 + j + 16] = byte >> 4;
      }
    },
  },
  Q4_1: {
    bits: 4,
    blockSize: 32,
    zeroPoint: 0,
    hasOffsets: true,
    sourceElements: 32,
    sourceBytes: 20,
    decode(src, at, codes, c0, scales, offsets, s0) {
      scales[s0] = half(src, at);
      offsets[s0] = half(src, at + 2);
      for (let j = 0; j < 16; j++) {
        const byte = src[at + 4 + j];
        codes[c0 + j] = byte & 0x0f;
        codes[c0 + j + 16] = byte >> 4;
      }
    },
  },
  Q5_0: {
    bits: 8,
    blockSize: 32,
    zeroPoint: 128,
    hasOffsets: false,
    sourceElements: 32,
    sourceBytes: 22,
    decode(src, at, codes, c0, scales, _offsets, s0) {
      scales[s0] = half(src, at);
      const qh = src.readUInt32LE(at + 2);
      for (let j = 0; j < 16; j++) {
        const byte = src[at + 6 + j];
        // (q − 16) + 128: the 5-bit code re-centred on the 8-bit default zero point.
        codes[c0 + j] = ((byte & 0x0f) | (((qh >>> j) & 1) << 4)) + 112;
        codes[c0 + j + 16] = ((byte >> 4) | (((qh >>> (j + 16)) & 1) << 4)) + 112;
      }
    },
  },
  Q5_1: {
    bits: 8,
    blockSize: 32,
    zeroPoint: 128,
    hasOffsets: true,
    sourceElements: 32,
    sourceBytes: 24,
    decode(src, at, codes, c0, scales, offsets, s0) {
      scales[s0] = half(src, at);
      offsets[s0] = half(src, at + 2);
      const qh = src.readUInt32LE(at + 4);
      for (let j = 0; j < 16; j++) {
        const byte = src[at + 8 + j];
        codes[c0 + j] = ((byte & 0x0f) | (((qh >>> j) & 1) << 4)) + 128;
        codes[c0 + j + 16] = ((byte >> 4) | (((qh >>> (j + 16)) & 1) << 4)) + 128;
      }
    },
  },
  Q8_0: {
    bits: 8,
    blockSize: 32,
    zeroPoint: 128,
    hasOffsets: false,
    sourceElements: 32,
    sourceBytes: 34,
    decode(src, at, codes, c0, scales, _offsets, s0) {
      scales[s0] = half(src, at);
      for (let j = 0; j < 32; j++) codes[c0 + j] = src.readInt8(at + 2 + j) + 128;
    },
  },
  Q4_K: {
    bits: 4,
    blockSize: 32,
    zeroPoint: 0,
    hasOffsets: true,
    sourceElements: 256,
    sourceBytes: 144,
    decode(src, at, codes, c0, scales, offsets, s0) {
      const d = half(src, at);
      const dmin = half(src, at + 2);
      const qs = at + 16;
      for (let chunk = 0; chunk < 4; chunk++) {
        for (let h = 0; h < 2; h++) {
          const sub = 2 * chunk + h;
          const [sc, mn] = scaleMinK4(src, at + 4, sub);
          scales[s0 + sub] = d * sc;
          offsets[s0 + sub] = -(dmin * mn);
          for (let l = 0; l < 32; l++) {
            const byte = src[qs + 32 * chunk + l];
            codes[c0 + 32 * sub + l] = h === 0 ? byte & 0x0f : byte >> 4;
          }
        }
      }
    },
  },
  Q5_K: {
    bits: 8,
    blockSize: 32,
    zeroPoint: 128,
    hasOffsets: true,
    sourceElements: 256,
    sourceBytes: 176,
    decode(src, at, codes, c0, scales, offsets, s0) {
      const d = half(src, at);
      const dmin = half(src, at + 2);
      const qh = at + 16;
      const qs = at + 48;
      for (let chunk = 0; chunk < 4; chunk++) {
        for (let h = 0; h < 2; h++) {
          const sub = 2 * chunk + h;
          const [sc, mn] = scaleMinK4(src, at + 4, sub);
          scales[s0 + sub] = d * sc;
          offsets[s0 + sub] = -(dmin * mn);
          const highBit = 1 << sub;
          for (let l = 0; l < 32; l++) {
            const byte = src[qs + 32 * chunk + l];
            const low = h === 0 ? byte & 0x0f : byte >> 4;
            codes[c0 + 32 * sub + l] = low + (src[qh + l] & highBit ? 16 : 0) + 128;
          }
        }
      }
    },
  },
  Q6_K: {
    bits: 8,
    blockSize: 16,
    zeroPoint: 128,
    hasOffsets: false,
    sourceElements: 256,
    sourceBytes: 210,
    decode(src, at, codes, c0, scales, _offsets, s0) {
      const d = half(src, at + 208);
      for (let i = 0; i < 16; i++) scales[s0 + i] = d * src.readInt8(at + 192 + i);
      for (let half128 = 0; half128 < 2; half128++) {
        const ql = at + 64 * half128;
        const qh = at + 128 + 32 * half128;
        const out = c0 + 128 * half128;
        for (let l = 0; l < 32; l++) {
          const h = src[qh + l];
          // (q − 32) + 128, as for Q5_0.
          codes[out + l] = ((src[ql + l] & 0x0f) | ((h & 3) << 4)) + 96;
          codes[out + l + 32] = ((src[ql + l + 32] & 0x0f) | (((h >> 2) & 3) << 4)) + 96;
          codes[out + l + 64] = ((src[ql + l] >> 4) | (((h >> 4) & 3) << 4)) + 96;
          codes[out + l + 96] = ((src[ql + l + 32] >> 4) | (((h >> 6) & 3) << 4)) + 96;
        }
      }
    },
  },
};

export function isCarriedOver(type: GgmlTypeName): boolean {
  return LAYOUTS[type] !== undefined;
}

/**
 * The blocks of a [rows, cols] ggml tensor (cols varying fastest, as a weight's input dimension)
 * in the MatMulNBits form.
 */
export function carryOverBlocks(
  type: GgmlTypeName,
  bytes: Buffer,
  rows: number,
  cols: number,
  /** Move offsets into zero points (for MatMulNBits); off keeps ggml's own split of each weight. */
  centre = true,
): BlockQuantized {
  const layout = LAYOUTS[type];
  if (!layout) throw new Error(`ggml type ${type} cannot be carried over into MatMulNBits blocks.`);
  if (cols % layout.sourceElements !== 0) {
    throw new Error(`A row of ${cols} weights does not fill whole ${type} blocks.`);
  }
  const sourceBlocks = (rows * cols) / layout.sourceElements;
  if (bytes.length !== sourceBlocks * layout.sourceBytes) {
    throw new Error(
      `${type} tensor of ${rows}×${cols} should take ${sourceBlocks * layout.sourceBytes} bytes, not ${bytes.length}.`,
    );
  }
  const subBlocksPerSource = layout.sourceElements / layout.blockSize;
  const codes = new Uint8Array(rows * cols);
  const scales = new Float32Array(sourceBlocks * subBlocksPerSource);
  const offsets = new Float32Array(layout.hasOffsets ? scales.length : 0);
  for (let b = 0; b < sourceBlocks; b++) {
    layout.decode(
      bytes,
      b * layout.sourceBytes,
      codes,
      b * layout.sourceElements,
      scales,
      offsets,
      b * subBlocksPerSource,
    );
  }
  const blocks: BlockQuantized = {
    bits: layout.bits,
    blockSize: layout.blockSize,
    rows,
    cols,
    codes,
    scales,
    zeroPoint: layout.zeroPoint,
    offsets: layout.hasOffsets ? offsets : undefined,
  };
  return layout.hasOffsets && centre ? centreOffsets(blocks) : blocks;
}

/**
 * Moves as much of each block's offset c as an integer zero point can hold:
 * s·(q − zp) + c = s·(q − zp′) + (c + s·(zp′ − zp)) with zp′ = zp − round(c / s).
 *
 * Both forms are the same weights (up to one float rounding of the new offset). The centred one
 * matters for accuracy: onnxruntime quantizes the activations to int8 (accuracy level 4), and the
 * rounding error then meets s·(q − zp′), which is close to the weight itself, instead of s·q,
 * which is all positive and adds the errors of a block up instead of cancelling them. llama.cpp's
 * kernels have the same property (they fold the minimum in with the quantized activation sums).
 */
export function centreOffsets(q: BlockQuantized): BlockQuantized {
  if (!q.offsets) return q;
  const maxCode = (1 << q.bits) - 1;
  const zeroPoints = new Uint8Array(q.scales.length);
  const offsets = new Float32Array(q.offsets.length);
  for (let b = 0; b < zeroPoints.length; b++) {
    const s = q.scales[b];
    const c = q.offsets[b];
    const shift = s !== 0 ? Math.round(c / s) : 0;
    const zp = Math.min(maxCode, Math.max(0, q.zeroPoint - shift));
    zeroPoints[b] = zp;
    offsets[b] = c + s * (zp - q.zeroPoint);
  }
  return { ...q, blockZeroPoints: zeroPoints, offsets };
}

/** Per-block zero points as MatMulNBits reads them: one byte each (8-bit) or two per byte (4-bit, low first, rows padded). */
export function packZeroPoints(q: BlockQuantized): Uint8Array | undefined {
  const blocks = q.cols / q.blockSize;
  const zpOf = (r: number, b: number) =>
    q.blockZeroPoints ? q.blockZeroPoints[r * blocks + b] : q.zeroPoint;
  if (!q.blockZeroPoints && q.zeroPoint === 1 << (q.bits - 1)) return undefined;
  if (q.bits === 8)
    return Uint8Array.from({ length: q.rows * blocks }, (_, i) => zpOf(Math.floor(i / blocks), i % blocks));
  const perRow = Math.ceil(blocks / 2);
  const out = new Uint8Array(q.rows * perRow);
  for (let r = 0; r < q.rows; r++)
    for (let b = 0; b < blocks; b++) out[r * perRow + (b >> 1)] |= zpOf(r, b) << (4 * (b & 1));
  return out;
}

/** Packs unpacked codes into MatMulNBits' [rows, blocks, blockSize·bits/8] bytes (low nibble first). */
export function packCodes(q: BlockQuantized): Uint8Array {
  if (q.bits === 8) return q.codes;
  const packed = new Uint8Array(q.codes.length / 2);
  for (let i = 0; i < packed.length; i++) packed[i] = q.codes[2 * i] | (q.codes[2 * i + 1] << 4);
  return packed;
}

/**
 * The weights the blocks stand for, as float32, with float32 arithmetic in ggml's order (scale
 * times code, then plus offset): uncentred blocks give exactly ggml's dequantized values.
 */
export function expandBlocks(q: BlockQuantized): Float32Array {
  const out = new Float32Array(q.rows * q.cols);
  for (let i = 0; i < out.length; i++) {
    const block = Math.floor(i / q.blockSize);
    const zp = q.blockZeroPoints ? q.blockZeroPoints[block] : q.zeroPoint;
    const scaled = Math.fround(q.scales[block] * (q.codes[i] - zp));
    out[i] = q.offsets ? scaled + q.offsets[block] : scaled;
  }
  return out;
}

/** ggml's dequantization of whole rows (what llama.cpp's get_rows gives), for any carried-over or float type. */
export function dequantizeRows(type: GgmlTypeName, bytes: Buffer, rows: number, cols: number): Float32Array {
  if (isCarriedOver(type)) return expandBlocks(carryOverBlocks(type, bytes, rows, cols, false));
  return floatValues(type, bytes);
}

/** Plain float tensors (F32, F16, BF16) as float32. */
export function floatValues(type: GgmlTypeName, bytes: Buffer): Float32Array {
  switch (type) {
    case 'F32':
      return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    case 'F16': {
      const out = new Float32Array(bytes.length / 2);
      for (let i = 0; i < out.length; i++) out[i] = halfToFloat(bytes.readUInt16LE(2 * i));
      return out;
    }
    case 'BF16': {
      const out = new Float32Array(bytes.length / 2);
      const view = new Uint32Array(out.buffer);
      for (let i = 0; i < out.length; i++) view[i] = bytes.readUInt16LE(2 * i) << 16;
      return out;
    }
    default:
      throw new Error(`ggml type ${type} is not a plain float type.`);
  }
}
