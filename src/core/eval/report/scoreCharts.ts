/**
 * The two charts every scorer gets in the report, whatever it scores (Prove's answers, the step
 * scorer's steps): a ROC curve against the chance diagonal, and a reliability diagram against the
 * perfect-calibration diagonal, with markers sized by how many points each bin holds.
 */
import type { CalibrationSummary, RocSummary, ScoreBin } from '../../math/stats';
import { lineChart, type Series } from './charts';
import { num } from './parts';

/** A chart of the unit square with its y = x diagonal. */
function unitChart(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  return lineChart({ title, xLabel, yLabel, x: [0, 1], y: [0, 1], diagonal: true, series });
}

export function rocChart(title: string, series: Series[]): string {
  return unitChart(title, 'false-positive rate', 'true-positive rate', series);
}

export function reliabilityChart(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  return unitChart(title, xLabel, yLabel, series);
}

export function rocSeries(r: RocSummary, name: string): Series {
  // Straight segments: a group of tied scores is a diagonal stretch of the curve, not a step.
  return {
    name: `${name} (AUROC ${num(r.auroc)})`,
    markers: false,
    points: r.curve.map((p) => ({ x: p.fpr, y: p.tpr })),
  };
}

/** One marker per non-empty bin at (mean score, accuracy), its area growing with the bin's count. */
export function reliabilitySeries(
  c: CalibrationSummary,
  name: string,
  label: (b: ScoreBin) => string,
): Series {
  const most = Math.max(1, ...c.bins.map((b) => b.count));
  return {
    name,
    points: c.bins
      .filter((b) => b.count > 0)
      .map((b) => ({
        x: b.meanScore!,
        y: b.accuracy!,
        radius: 2.5 + 6 * Math.sqrt(b.count / most),
        label: label(b),
      })),
  };
}
