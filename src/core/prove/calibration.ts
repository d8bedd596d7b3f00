import type { ProveRun } from './runSchema';

/** One (self-score, verifier score) pair: how sure the generator was, and what the verifier found. */
export interface CalibrationPoint {
  selfScore: number;
  verifierScore: number;
}

export interface ReliabilityBin {
  /** The self-score this bin collects (0, 0.5 or 1). */
  selfScore: number;
  count: number;
  /** Mean verifier score of the bin's proofs; null for an empty bin. A calibrated generator has meanVerifier ≈ selfScore. */
  meanVerifier: number | null;
  /** selfScore − meanVerifier: positive means over-confident. */
  gap: number | null;
}

export interface Calibration {
  bins: ReliabilityBin[];
  count: number;
  /** Mean |self-score − verifier score| over all points (the complement of the mean R_score). */
  meanAbsoluteError: number | null;
  /** Mean self-score − mean verifier score: positive means the generator is optimistic overall. */
  bias: number | null;
}

const BIN_CENTRES = [0, 0.5, 1];

/**
 * The reliability diagram of self-evaluation: points are binned by self-score (each point goes to
 * the nearest of 0, 0.5, 1) and each bin holds the mean verifier score of its proofs.
 */
export function calibrationOf(points: readonly CalibrationPoint[]): Calibration {
  const sums = BIN_CENTRES.map(() => ({ count: 0, verifier: 0 }));
  let absError = 0;
  let selfSum = 0;
  let verifierSum = 0;
  for (const p of points) {
    const bin = nearest(p.selfScore);
    sums[bin].count++;
    sums[bin].verifier += p.verifierScore;
    absError += Math.abs(p.selfScore - p.verifierScore);
    selfSum += p.selfScore;
    verifierSum += p.verifierScore;
  }
  const n = points.length;
  return {
    bins: BIN_CENTRES.map((selfScore, i) => {
      const meanVerifier = sums[i].count === 0 ? null : sums[i].verifier / sums[i].count;
      return {
        selfScore,
        count: sums[i].count,
        meanVerifier,
        gap: meanVerifier === null ? null : selfScore - meanVerifier,
      };
    }),
    count: n,
    meanAbsoluteError: n === 0 ? null : absError / n,
    bias: n === 0 ? null : (selfSum - verifierSum) / n,
  };
}

function nearest(score: number): number {
  let best = 0;
  for (let i = 1; i < BIN_CENTRES.length; i++) {
    if (Math.abs(BIN_CENTRES[i] - score) < Math.abs(BIN_CENTRES[best] - score)) best = i;
  }
  return best;
}

/** Every candidate of every round with both a self-score and a verifier score. */
export function calibrationPoints(runs: readonly ProveRun[]): CalibrationPoint[] {
  const points: CalibrationPoint[] = [];
  for (const run of runs) {
    for (const iteration of run.iterations) {
      for (const c of iteration.candidates) {
        const verifierScore = c.verifier?.score ?? null;
        if (c.parsed.selfScore !== null && verifierScore !== null) {
          points.push({ selfScore: c.parsed.selfScore, verifierScore });
        }
      }
    }
  }
  return points;
}
