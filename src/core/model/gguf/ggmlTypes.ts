/**
 * The ggml tensor types a GGUF file may hold: their numeric ids (from ggml.h) and block geometry
 * (elements per block, bytes per block). Only the geometry lives here; what each block means is in
 * blockCodecs.ts.
 */

export const GGML_TYPES = {
  F32: 0,
  F16: 1,
  Q4_0: 2,
  Q4_1: 3,
  Q5_0: 6,
  Q5_1: 7,
  Q8_0: 8,
  Q8_1: 9,
  Q2_K: 10,
  Q3_K: 11,
  Q4_K: 12,
  Q5_K: 13,
  Q6_K: 14,
  Q8_K: 15,
  BF16: 30,
} as const;

export type GgmlTypeName = keyof typeof GGML_TYPES;

interface Geometry {
  /** Elements in one block (1 for plain floats). */
  blockElements: number;
  /** Bytes one block takes in the file. */
  blockBytes: number;
}

const GEOMETRY: Record<GgmlTypeName, Geometry> = {
  F32: { blockElements: 1, blockBytes: 4 },
  F16: { blockElements: 1, blockBytes: 2 },
  BF16: { blockElements: 1, blockBytes: 2 },
  Q4_0: { blockElements: 32, blockBytes: 2 + 16 },
  Q4_1: { blockElements: 32, blockBytes: 2 + 2 + 16 },
  Q5_0: { blockElements: 32, blockBytes: 2 + 4 + 16 },
  Q5_1: { blockElements: 32, blockBytes: 2 + 2 + 4 + 16 },
  Q8_0: { blockElements: 32, blockBytes: 2 + 32 },
  Q8_1: { blockElements: 32, blockBytes: 4 + 4 + 32 },
  Q2_K: { blockElements: 256, blockBytes: 16 + 64 + 2 + 2 },
  Q3_K: { blockElements: 256, blockBytes: 32 + 64 + 12 + 2 },
  Q4_K: { blockElements: 256, blockBytes: 2 + 2 + 12 + 128 },
  Q5_K: { blockElements: 256, blockBytes: 2 + 2 + 12 + 32 + 128 },
  Q6_K: { blockElements: 256, blockBytes: 128 + 64 + 16 + 2 },
  Q8_K: { blockElements: 256, blockBytes: 4 + 256 + 32 },
};

const NAME_OF = new Map<number, GgmlTypeName>(
  (Object.entries(GGML_TYPES) as [GgmlTypeName, number][]).map(([name, id]) => [id, name]),
);

/** The type's name, or undefined for an id this reader does not know. */
export function ggmlTypeName(id: number): GgmlTypeName | undefined {
  return NAME_OF.get(id);
}

export function ggmlGeometry(type: GgmlTypeName): Geometry {
  return GEOMETRY[type];
}

/** Bytes a tensor of `elements` elements takes; throws when they do not fill whole blocks. */
export function ggmlByteLength(type: GgmlTypeName, elements: number): number {
  const { blockElements, blockBytes } = GEOMETRY[type];
  if (elements % blockElements !== 0) {
    throw new Error(`${elements} elements do not fill whole ${type} blocks of ${blockElements}.`);
  }
  return (elements / blockElements) * blockBytes;
}

/** IEEE half precision to a JS number (exact). */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}
