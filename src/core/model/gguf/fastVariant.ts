/**
 * The fast variant of a conversion: which ggml types are re-quantized to 4-bit blocks, and in what
 * form. The exact graph keeps every block as the GGUF has it; the fast one re-fits the tensors
 * whose exact form costs the most per token:
 *
 *   Q5_0, Q5_1, Q6_K  carried as 8-bit blocks (no 5/6-bit kernel): twice the bytes of 4-bit
 *   Q4_1              4-bit, but its float per-block minimum needs a second matmul
 *
 * The form (block size 32, a zero point per block) has the smallest reconstruction error of the
 * forms measured on the default model's weights (bench/results/requantize-error.json, from
 * `npm run bench:requantize`): relative RMS error 0.084 on its Q5_0 tensors and 0.080 on Q6_K,
 * against 0.102/0.093 for blocks of 64 (half a bit per weight less) and 0.102/0.089 symmetric.
 */
import { carryOverBlocks, expandBlocks, type BlockQuantized } from './blockCodecs';
import type { GgmlTypeName } from './ggmlTypes';
import { quantizeFourBit, type FourBitForm } from './requantize';

export type ConversionVariant = 'exact' | 'fast';

export const FAST_FORM: FourBitForm = { blockSize: 32, zeroPoints: true };

export const FAST_REQUANTIZED_TYPES: readonly GgmlTypeName[] = ['Q5_0', 'Q5_1', 'Q6_K', 'Q4_1'];

/** The ggml dequantized weights of a carried-over tensor, [rows, cols]. */
export function ggmlWeights(type: GgmlTypeName, bytes: Buffer, rows: number, cols: number): Float32Array {
  return expandBlocks(carryOverBlocks(type, bytes, rows, cols, false));
}

/**
 * The blocks a weight gets in the fast variant: re-quantized when its type is one of
 * FAST_REQUANTIZED_TYPES and its rows fill whole blocks of the form, else undefined (carried as in
 * the exact graph).
 */
export function fastBlocks(
  type: GgmlTypeName,
  bytes: Buffer,
  rows: number,
  cols: number,
  form: FourBitForm = FAST_FORM,
): BlockQuantized | undefined {
  if (!FAST_REQUANTIZED_TYPES.includes(type) || cols % form.blockSize !== 0) return undefined;
  return quantizeFourBit(ggmlWeights(type, bytes, rows, cols), rows, cols, form);
}
