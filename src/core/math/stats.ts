/**
 * The statistics of the scoreboard: proportions with Wilson score intervals, calibration (ECE and
 * the reliability diagram), ROC curves and AUROC with a percentile bootstrap interval, F1.
 * Every function takes plain arrays and returns plain JSON, so results files carry them as is.
 */
import { auroc as aurocOf, expectedCalibrationError, reliabilityBins } from './calibration';

/** A proportion k/n with its 95 % Wilson score interval (sound for small n and for k = 0 or n). */
export interface Proportion {
  k: number;
  n: number;
  /** k / n; null when n = 0. */
  value: number | null;
  low: number | null;
  high: number | null;
}

const Z95 = 1.959963984540054;

export function wilson(k: number, n: number, z = Z95): Proportion {
  if (n === 0) return { k, n, value: null, low: null, high: null };
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { k, n, value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export function proportion(flags: readonly boolean[]): Proportion {
  return wilson(flags.filter(Boolean).length, flags.length);
}

/** A confidence in [0, 1] and whether the thing it is about turned out right. */
export interface ScoredOutcome {
  score: number;
  correct: boolean;
}

/** One bin of an evaluation's reliability diagram, as the results files store it. */
export interface ScoreBin {
  /** Bin bounds on the score axis: [low, high), the last bin closed. */
  low: number;
  high: number;
  count: number;
  /** Mean score of the bin's points (its confidence); null when empty. */
  meanScore: number | null;
  /** Share of the bin's points that were correct; null when empty. */
  accuracy: number | null;
}

export interface CalibrationSummary {
  count: number;
  /** Expected calibration error: Σ_b (n_b / N) · |accuracy_b − meanScore_b| over equal-width bins. */
  ece: number | null;
  bins: ScoreBin[];
}

const samples = (points: readonly ScoredOutcome[]) =>
  points.map((p) => ({ confidence: p.score, outcome: p.correct ? 1 : 0 }));

/**
 * Calibration of scores read as probabilities of being correct, over `binCount` equal-width bins
 * (the maths is src/core/math/calibration.ts). Discrete scores (0, 0.5, 1) land in the bins holding
 * those values, so a three-valued self-score gives a three-point reliability diagram, as it should.
 */
export function calibration(points: readonly ScoredOutcome[], binCount = 10): CalibrationSummary {
  const bins = reliabilityBins(samples(points), binCount).map((b) => ({
    low: b.lower,
    high: b.upper,
    count: b.count,
    meanScore: b.meanConfidence,
    accuracy: b.meanOutcome,
  }));
  return { count: points.length, ece: expectedCalibrationError(samples(points), binCount), bins };
}

/** Area under the ROC curve: P(score of a random correct item > that of a random wrong one), ties ½. */
export function auroc(points: readonly ScoredOutcome[]): number | null {
  return aurocOf(samples(points));
}

/** A 95 % percentile-bootstrap interval of AUROC (resampling items, seeded so reruns agree). */
export function aurocInterval(
  points: readonly ScoredOutcome[],
  resamples = 1000,
  seed = 1,
): { low: number; high: number } | null {
  if (auroc(points) === null) return null;
  const random = mulberry32(seed);
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const sample = Array.from({ length: points.length }, () => points[Math.floor(random() * points.length)]);
    const a = auroc(sample);
    if (a !== null) values.push(a);
  }
  if (values.length < resamples / 2) return null;
  return percentileInterval(values);
}

/**
 * A 95 % percentile-bootstrap interval of a paired statistic (typically a difference between two
 * systems run on the same items): each resample draws items, and with them both systems' results
 * on those items, so what the items share (their difficulty) cancels out of the difference.
 * Resamples where the statistic is undefined (an AUROC without both classes) are skipped; null
 * when more than half are, or when there are no items.
 */
export function pairedBootstrapInterval<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  resamples = 2000,
  seed = 1,
): { low: number; high: number } | null {
  if (!items.length) return null;
  const random = mulberry32(seed);
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const sample = Array.from({ length: items.length }, () => items[Math.floor(random() * items.length)]);
    const v = statistic(sample);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  if (values.length < resamples / 2) return null;
  return percentileInterval(values);
}

/**
 * The ECE a perfectly calibrated predictor would still show on these points: outcomes are drawn
 * as Bernoulli(score) for the same scores, `draws` times (seeded). ECE over few points is biased
 * upward, so a measured ECE near this mean is calibration noise, and only one above `high` (the
 * 95th percentile) says the probabilities are off. Null without points.
 */
export function eceIfCalibrated(
  points: readonly ScoredOutcome[],
  draws = 1000,
  seed = 1,
  binCount = 10,
): { mean: number; high: number } | null {
  if (!points.length) return null;
  const random = mulberry32(seed);
  const values: number[] = [];
  for (let d = 0; d < draws; d++) {
    const drawn = points.map((p) => ({ confidence: p.score, outcome: random() < p.score ? 1 : 0 }));
    values.push(expectedCalibrationError(drawn, binCount) ?? 0);
  }
  values.sort((a, b) => a - b);
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, high: quantileOfSorted(values, 0.95) };
}

/** The central 95 % of bootstrap statistics (sorted in place). */
export function percentileInterval(values: number[]): { low: number; high: number } {
  values.sort((a, b) => a - b);
  return { low: quantileOfSorted(values, 0.025), high: quantileOfSorted(values, 0.975) };
}

/** The value at quantile q of ascending values (the lower of two neighbours, no interpolation). */
function quantileOfSorted(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export interface RocSummary {
  count: number;
  positives: number;
  auroc: number | null;
  interval: { low: number; high: number } | null;
  /** (false-positive rate, true-positive rate) from the strictest threshold to the loosest. */
  curve: { fpr: number; tpr: number }[];
}

export function roc(points: readonly ScoredOutcome[]): RocSummary {
  const pos = points.filter((p) => p.correct).length;
  const neg = points.length - pos;
  const curve: { fpr: number; tpr: number }[] = [{ fpr: 0, tpr: 0 }];
  if (pos > 0 && neg > 0) {
    const sorted = [...points].sort((a, b) => b.score - a.score);
    let tp = 0;
    let fp = 0;
    for (let i = 0; i < sorted.length;) {
      let j = i;
      while (j < sorted.length && sorted[j].score === sorted[i].score) {
        if (sorted[j].correct) tp++;
        else fp++;
        j++;
      }
      curve.push({ fpr: fp / neg, tpr: tp / pos });
      i = j;
    }
  }
  return {
    count: points.length,
    positives: pos,
    auroc: auroc(points),
    interval: aurocInterval(points),
    curve,
  };
}

/** Precision, recall and F1 of a detector, from its counts. */
export function f1(
  tp: number,
  fp: number,
  fn: number,
): { precision: number | null; recall: number | null; f1: number | null } {
  const precision = tp + fp ? tp / (tp + fp) : null;
  const recall = tp + fn ? tp / (tp + fn) : null;
  const f =
    precision !== null && recall !== null && precision + recall > 0
      ? (2 * precision * recall) / (precision + recall)
      : null;
  return { precision, recall, f1: tp === 0 && fp + fn > 0 ? 0 : f };
}

export function mean(values: readonly number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** A small seeded generator (mulberry32): repeatable resampling without a dependency. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
