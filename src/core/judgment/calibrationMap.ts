/**
 * Maps from a combined score's log-odds to a probability: the identity (σ of the log-odds as the
 * regression gives it), Platt scaling (σ(a·z + b), refitted on scores the regression did not see)
 * and isotonic regression (pool-adjacent-violators: the monotone step function closest to the
 * outcomes). Which one a calibrator uses is chosen by held-out Brier score (calibrator.ts).
 */
import { fitLogistic, sigmoid } from './logistic';

export type CalibrationMap =
  | { kind: 'identity' }
  | { kind: 'platt'; a: number; b: number }
  /** Ascending log-odds knots and the probability from each knot up to the next. */
  | { kind: 'isotonic'; knots: number[]; values: number[] };

export type MapKind = CalibrationMap['kind'];
export const MAP_KINDS: readonly MapKind[] = ['identity', 'platt', 'isotonic'];

export function applyMap(map: CalibrationMap, z: number): number {
  if (map.kind === 'identity') return sigmoid(z);
  if (map.kind === 'platt') return sigmoid(map.a * z + map.b);
  const { knots, values } = map;
  if (!knots.length) return sigmoid(z);
  let i = 0;
  while (i + 1 < knots.length && knots[i + 1] <= z) i++;
  return values[i];
}

export function fitMap(kind: MapKind, z: readonly number[], labels: readonly boolean[]): CalibrationMap {
  if (kind === 'identity') return { kind };
  if (kind === 'platt') {
    // A tiny penalty keeps the slope finite when the scores separate the outcomes perfectly.
    const m = fitLogistic(
      z.map((v) => [v]),
      labels,
      1e-3,
    );
    // Undo the standardisation so the map reads the raw log-odds. A falling slope would turn the
    // regression's ranking upside down on the strength of a few points: the map then keeps only
    // the base rate (slope 0), which says "no signal" instead of the opposite of the signal.
    const a = m.weights[0] / m.scale[0];
    if (!(a > 0)) {
      const rate = (labels.filter(Boolean).length + 0.5) / (labels.length + 1);
      return { kind, a: 0, b: Math.log(rate / (1 - rate)) };
    }
    return { kind, a, b: m.bias - a * m.mean[0] };
  }
  return fitIsotonic(z, labels);
}

/**
 * Pool-adjacent-violators on (score, outcome) sorted by score. Ties share one block, and each
 * block's value is shrunk slightly toward ½ ((k + ½)/(n + 1)) so no score maps to exactly 0 or 1:
 * a handful of training points never justify certainty.
 */
export function fitIsotonic(z: readonly number[], labels: readonly boolean[]): CalibrationMap {
  const order = z.map((v, i) => i).sort((a, b) => z[a] - z[b] || a - b);
  const blocks: { start: number; sum: number; count: number }[] = [];
  for (let k = 0; k < order.length;) {
    let j = k;
    let sum = 0;
    while (j < order.length && z[order[j]] === z[order[k]]) sum += labels[order[j++]] ? 1 : 0;
    blocks.push({ start: z[order[k]], sum, count: j - k });
    k = j;
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1];
      const prev = blocks[blocks.length - 2];
      if (prev.sum / prev.count < last.sum / last.count) break;
      blocks.splice(-2, 2, { start: prev.start, sum: prev.sum + last.sum, count: prev.count + last.count });
    }
  }
  return {
    kind: 'isotonic',
    knots: blocks.map((b) => b.start),
    values: blocks.map((b) => (b.sum + 0.5) / (b.count + 1)),
  };
}

/** Mean squared error of probabilities against outcomes (lower is better). */
export function brier(p: readonly number[], labels: readonly boolean[]): number {
  return p.reduce((a, v, i) => a + (v - (labels[i] ? 1 : 0)) ** 2, 0) / Math.max(1, p.length);
}
