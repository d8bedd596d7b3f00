/**
 * Re-quantizes weights to 4-bit MatMulNBits blocks, for the fast variant of a converted model.
 *
 * onnxruntime has 4- and 8-bit MatMulNBits kernels only, so the exact conversion carries Q5_0 and
 * Q6_K over as 8-bit blocks, and keeps the float per-block offsets of Q4_1/Q4_K as a second matmul
 * (see linearLayer.ts). Both cost memory traffic on every token. Here each block of the source's
 * dequantized weights x is fitted anew with 4-bit codes q ∈ [0, 15]:
 *
 *   symmetric        x ≈ s·(q − 8)     one float scale per block
 *   with zero point  x ≈ s·(q − z)     a float scale and an integer z ∈ [0, 15] per block
 *
 * The scale is chosen to minimize the block's squared error, not taken from the block's extremes:
 * a few candidate scales around the one that maps the extreme value to the end of the code range
 * are tried; for each, codes are rounded, then the scale is refitted by least squares for those
 * codes (s = Σ x·c / Σ c² with c = q − z), and the candidate with the smallest error wins; one
 * more round of re-coding and refitting with the winner follows. Trading a little clipping of the
 * extreme weight for finer steps everywhere else is what makes 4 bits hold most of a 5- or 6-bit
 * block's detail.
 */
import type { BlockQuantized } from './blockCodecs';

export interface FourBitForm {
  blockSize: 32 | 64 | 128;
  /** Per-block integer zero points (asymmetric) or the fixed zero point 8. */
  zeroPoints: boolean;
}

/** Scale candidates tried per block: the extreme weight mapped to the range end ± up to one step, in quarters (more candidates measured no better). */
const CANDIDATE_STEPS = [-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1];

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/** Codes and scale (and zero point) for one block; writes codes[at..at+n). */
type BlockFitter = (
  x: Float32Array,
  at: number,
  n: number,
  codes: Uint8Array,
) => { scale: number; zero: number };

/**
 * The squared error of the block after coding with scale s and zero z and refitting the scale:
 * for codes c, the least-squares scale is Σx·c / Σc², and the error Σx² − (Σx·c)² / Σc².
 */
function refittedError(x: Float32Array, at: number, n: number, s: number, z: number, xx: number): number {
  const inv = 1 / s;
  let xc = 0;
  let cc = 0;
  for (let i = at; i < at + n; i++) {
    const c = clamp(Math.round(x[i] * inv) + z, 0, 15) - z;
    xc += x[i] * c;
    cc += c * c;
  }
  return cc > 0 ? xx - (xc * xc) / cc : xx;
}

/** Writes the codes for scale s and zero z; returns the least-squares scale for those codes. */
function codeAndRefit(
  x: Float32Array,
  at: number,
  n: number,
  s: number,
  z: number,
  codes: Uint8Array,
): number {
  const inv = 1 / s;
  let xc = 0;
  let cc = 0;
  for (let i = at; i < at + n; i++) {
    const q = clamp(Math.round(x[i] * inv) + z, 0, 15);
    codes[i] = q;
    xc += x[i] * (q - z);
    cc += (q - z) * (q - z);
  }
  return cc > 0 ? Math.fround(xc / cc) : 0;
}

/** The best of the candidate scales (by squared error after refitting), then one more re-code and refit. */
function bestOf(
  x: Float32Array,
  at: number,
  n: number,
  codes: Uint8Array,
  candidates: (step: number) => { s: number; z: number },
): { scale: number; zero: number } {
  let xx = 0;
  for (let i = at; i < at + n; i++) xx += x[i] * x[i];
  let best: { s: number; z: number } | undefined;
  let bestError = Infinity;
  for (const step of CANDIDATE_STEPS) {
    const c = candidates(step);
    if (!Number.isFinite(c.s) || c.s === 0) continue;
    const error = refittedError(x, at, n, c.s, c.z, xx);
    if (error < bestError) {
      bestError = error;
      best = c;
    }
  }
  if (!best) {
    // An all-zero block: every code at the zero point.
    codes.fill(8, at, at + n);
    return { scale: 0, zero: 8 };
  }
  const scale = codeAndRefit(x, at, n, best.s, best.z, codes);
  // Coding again with the refitted scale can only move codes towards the weights; keep it if better.
  if (scale !== 0 && refittedError(x, at, n, scale, best.z, xx) < bestError) {
    return { scale: codeAndRefit(x, at, n, scale, best.z, codes), zero: best.z };
  }
  return { scale, zero: best.z };
}

/** x ≈ s·(q − 8): the weight of largest magnitude lands near −8 (or 7), where the range is widest. */
const symmetricFit: BlockFitter = (x, at, n, codes) => {
  let extreme = 0;
  for (let i = 0; i < n; i++) if (Math.abs(x[at + i]) > Math.abs(extreme)) extreme = x[at + i];
  return bestOf(x, at, n, codes, (step) => ({ s: extreme / -(8 + step), z: 8 }));
};

/** x ≈ s·(q − z): the block's range (with 0 in it, which z must represent) spread over 15 steps. */
const zeroPointFit: BlockFitter = (x, at, n, codes) => {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    lo = Math.min(lo, x[at + i]);
    hi = Math.max(hi, x[at + i]);
  }
  return bestOf(x, at, n, codes, (step) => {
    const s = (hi - lo) / (15 + step);
    return { s, z: s > 0 ? clamp(Math.round(-lo / s), 0, 15) : 8 };
  });
};

/** Float weights [rows, cols] (row-major, cols the input dimension) as 4-bit blocks of `form`. */
export function quantizeFourBit(
  values: Float32Array,
  rows: number,
  cols: number,
  form: FourBitForm,
): BlockQuantized {
  if (cols % form.blockSize !== 0)
    throw new Error(`A row of ${cols} weights does not fill whole blocks of ${form.blockSize}.`);
  const blocks = (rows * cols) / form.blockSize;
  const codes = new Uint8Array(rows * cols);
  const scales = new Float32Array(blocks);
  const zeroPoints = form.zeroPoints ? new Uint8Array(blocks) : undefined;
  const fit = form.zeroPoints ? zeroPointFit : symmetricFit;
  for (let b = 0; b < blocks; b++) {
    const { scale, zero } = fit(values, b * form.blockSize, form.blockSize, codes);
    scales[b] = scale;
    if (zeroPoints) zeroPoints[b] = zero;
  }
  return {
    bits: 4,
    blockSize: form.blockSize,
    rows,
    cols,
    codes,
    scales,
    // The same nominal zero point as Q4_K's carried blocks (0, overridden per block), so that
    // re-quantized and carried 4-bit weights over one input stack into one matmul.
    zeroPoint: zeroPoints ? 0 : 8,
    blockZeroPoints: zeroPoints,
    offsets: undefined,
  };
}

/**
 * The plain rounding the search is measured against: the extreme weight mapped exactly to the end
 * of the code range, codes rounded, no refit (what a min/max quantizer does).
 */
export function quantizeFourBitMinMax(
  values: Float32Array,
  rows: number,
  cols: number,
  form: FourBitForm,
): BlockQuantized {
  const q = quantizeFourBit(values, rows, cols, form);
  const n = form.blockSize;
  for (let b = 0; b < q.scales.length; b++) {
    const at = b * n;
    let lo = 0;
    let hi = 0;
    let extreme = 0;
    for (let i = 0; i < n; i++) {
      lo = Math.min(lo, values[at + i]);
      hi = Math.max(hi, values[at + i]);
      if (Math.abs(values[at + i]) > Math.abs(extreme)) extreme = values[at + i];
    }
    const s = form.zeroPoints ? (hi - lo) / 15 : extreme / -8;
    const z = form.zeroPoints ? (s > 0 ? clamp(Math.round(-lo / s), 0, 15) : 8) : 8;
    const inv = s !== 0 ? 1 / s : 0;
    for (let i = 0; i < n; i++) q.codes[at + i] = clamp(Math.round(values[at + i] * inv) + z, 0, 15);
    q.scales[b] = Math.fround(s);
    if (q.blockZeroPoints) q.blockZeroPoints[b] = z;
  }
  return q;
}

/** Squared-error sums of a reconstruction against the weights it stands for. */
export function reconstructionError(
  values: Float32Array,
  approx: Float32Array,
): { squaredError: number; squaredWeight: number } {
  let squaredError = 0;
  let squaredWeight = 0;
  for (let i = 0; i < values.length; i++) {
    const d = values[i] - approx[i];
    squaredError += d * d;
    squaredWeight += values[i] * values[i];
  }
  return { squaredError, squaredWeight };
}

/** Bits per weight of a 4-bit form in the graph: codes, a float32 scale, and a 4-bit zero point. */
export function bitsPerWeight(form: FourBitForm): number {
  return 4 + (32 + (form.zeroPoints ? 4 : 0)) / form.blockSize;
}
