/**
 * How well scores predict correctness, from saved runs: reliability diagrams, the expected
 * calibration error (ECE) and the area under the ROC curve (AUROC). Pure functions; the CLI's
 * `stepwise calibration` and the Calibration panel both show what `calibrationReport` returns.
 *
 * A sample pairs a confidence in [0, 1] (an expected self-score or verifier score) with an
 * outcome in [0, 1]: whether the candidate's final answer matched the reference answer (1 or 0),
 * or, for problems without one, the verifier's expected score as a soft label.
 */
import { isDataRun, type ProveRun } from './runSchema';

export interface CalibrationSample {
  confidence: number;
  outcome: number;
}

export interface ReliabilityBin {
  /** The bin holds confidences in [lower, upper); the last bin also holds 1. */
  lower: number;
  upper: number;
  count: number;
  /** Null for an empty bin. */
  meanConfidence: number | null;
  meanOutcome: number | null;
}

export interface ScoreCalibration {
  count: number;
  bins: ReliabilityBin[];
  /** Σ_b (n_b / N)·|mean outcome_b − mean confidence_b|; null without samples. */
  ece: number | null;
  /** P(a correct sample is more confident than an incorrect one), ties counting ½; null unless outcomes are 0/1 of both kinds. */
  auroc: number | null;
  /** Mean confidence − mean outcome: positive means over-confident. */
  bias: number | null;
}

export const DEFAULT_BINS = 10;

/** Equal-width bins over [0, 1]. */
export function reliabilityBins(
  samples: readonly CalibrationSample[],
  binCount = DEFAULT_BINS,
): ReliabilityBin[] {
  const sums = Array.from({ length: binCount }, () => ({ n: 0, confidence: 0, outcome: 0 }));
  for (const s of samples) {
    const b = Math.min(binCount - 1, Math.max(0, Math.floor(s.confidence * binCount)));
    sums[b].n++;
    sums[b].confidence += s.confidence;
    sums[b].outcome += s.outcome;
  }
  return sums.map((x, i) => ({
    lower: i / binCount,
    upper: (i + 1) / binCount,
    count: x.n,
    meanConfidence: x.n ? x.confidence / x.n : null,
    meanOutcome: x.n ? x.outcome / x.n : null,
  }));
}

export function expectedCalibrationError(
  samples: readonly CalibrationSample[],
  binCount = DEFAULT_BINS,
): number | null {
  if (samples.length === 0) return null;
  let ece = 0;
  for (const b of reliabilityBins(samples, binCount)) {
    if (b.count === 0 || b.meanConfidence === null || b.meanOutcome === null) continue;
    ece += (b.count / samples.length) * Math.abs(b.meanOutcome - b.meanConfidence);
  }
  return ece;
}

/**
 * AUROC by the rank-sum (Mann–Whitney U) statistic with average ranks for ties:
 * (R₊ − n₊(n₊ + 1)/2) / (n₊·n₋), where R₊ is the sum of the positives' ranks.
 */
export function auroc(samples: readonly CalibrationSample[]): number | null {
  if (samples.some((s) => s.outcome !== 0 && s.outcome !== 1)) return null;
  const positives = samples.filter((s) => s.outcome === 1).length;
  const negatives = samples.length - positives;
  if (positives === 0 || negatives === 0) return null;
  const sorted = [...samples].sort((a, b) => a.confidence - b.confidence);
  let rankSum = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j].confidence === sorted[i].confidence) j++;
    const averageRank = (i + 1 + j) / 2; // ranks i+1 … j share their mean
    for (let k = i; k < j; k++) if (sorted[k].outcome === 1) rankSum += averageRank;
    i = j;
  }
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

export function scoreCalibration(
  samples: readonly CalibrationSample[],
  binCount = DEFAULT_BINS,
): ScoreCalibration {
  const n = samples.length;
  const mean = (f: (s: CalibrationSample) => number) => samples.reduce((a, s) => a + f(s), 0) / n;
  return {
    count: n,
    bins: reliabilityBins(samples, binCount),
    ece: expectedCalibrationError(samples, binCount),
    auroc: auroc(samples),
    bias: n ? mean((s) => s.confidence) - mean((s) => s.outcome) : null,
  };
}

export interface CalibrationReport {
  /** Expected self-score against answer correctness (candidates of problems with a reference answer). */
  selfVsAnswer: ScoreCalibration;
  /** Expected verifier score against answer correctness. */
  verifierVsAnswer: ScoreCalibration;
  /** Expected self-score against the expected verifier score (every judged candidate). */
  selfVsVerifier: ScoreCalibration;
  /** Candidates by how they were generated, to read the figures above with. */
  constrained: number;
  free: number;
}

/** Every candidate of every round of the runs, as samples of the three comparisons. */
export function calibrationReport(runs: readonly ProveRun[], binCount = DEFAULT_BINS): CalibrationReport {
  const selfVsAnswer: CalibrationSample[] = [];
  const verifierVsAnswer: CalibrationSample[] = [];
  const selfVsVerifier: CalibrationSample[] = [];
  let constrained = 0;
  let free = 0;
  for (const run of runs.filter(isDataRun)) {
    for (const iteration of run.iterations) {
      for (const c of iteration.candidates) {
        if (c.constrained) constrained++;
        else free++;
        const self = c.parsed.selfScore;
        const verifier = c.verifier?.score ?? null;
        const correct = c.answerCheck ? Number(c.answerCheck.matches) : null;
        if (self !== null && correct !== null) selfVsAnswer.push({ confidence: self, outcome: correct });
        if (verifier !== null && correct !== null)
          verifierVsAnswer.push({ confidence: verifier, outcome: correct });
        if (self !== null && verifier !== null) selfVsVerifier.push({ confidence: self, outcome: verifier });
      }
    }
  }
  return {
    selfVsAnswer: scoreCalibration(selfVsAnswer, binCount),
    verifierVsAnswer: scoreCalibration(verifierVsAnswer, binCount),
    selfVsVerifier: scoreCalibration(selfVsVerifier, binCount),
    constrained,
    free,
  };
}
