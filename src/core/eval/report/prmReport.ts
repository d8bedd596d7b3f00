/** The step-scorer part of the report: step ROC and calibration, error flags, first-error accuracy. */
import type { PrmMetrics } from '../prmEval';
import { barChart, lineChart } from './charts';
import { charts, num, pct, section, smallSampleMark, table, tiles } from './parts';

export function prmSections(m: PrmMetrics): string[] {
  const fe = m.firstError;
  const headline = tiles([
    {
      label: 'Step AUROC',
      value: num(m.stepRoc.auroc),
      detail: `${m.steps} steps${smallSampleMark(m.steps, 'step figures')}`,
    },
    {
      label: 'First-error accuracy',
      value: num(fe.accuracy.value),
      detail: `${fe.accuracy.k}/${fe.accuracy.n} solutions${smallSampleMark(fe.accuracy.n, 'rates')}`,
    },
    { label: 'ProcessBench F1', value: num(fe.f1) },
    { label: 'Error-step F1', value: num(m.errorDetection.f1), detail: `threshold ${m.threshold}` },
  ]);
  const rocChart = lineChart({
    title: 'ROC: step scores vs labels',
    xLabel: 'false-positive rate',
    yLabel: 'true-positive rate',
    x: [0, 1],
    y: [0, 1],
    diagonal: true,
    series: [
      {
        name: `steps (AUROC ${num(m.stepRoc.auroc)})`,
        markers: false,
        points: m.stepRoc.curve.map((p) => ({ x: p.fpr, y: p.tpr })),
      },
    ],
  });
  const most = Math.max(1, ...m.stepCalibration.bins.map((b) => b.count));
  const reliability = lineChart({
    title: 'Reliability diagram of step scores',
    xLabel: 'step score',
    yLabel: 'share of steps not wrong',
    x: [0, 1],
    y: [0, 1],
    diagonal: true,
    series: [
      {
        name: `steps (ECE ${num(m.stepCalibration.ece)})`,
        points: m.stepCalibration.bins
          .filter((b) => b.count)
          .map((b) => ({
            x: b.meanScore!,
            y: b.accuracy!,
            radius: 2.5 + 6 * Math.sqrt(b.count / most),
            label: `${b.count} steps`,
          })),
      },
    ],
  });
  const firstErrorChart = barChart({
    title: 'First wrong step found',
    yLabel: 'accuracy',
    y: [0, 1],
    bars: [
      {
        label: 'all',
        value: fe.accuracy.value,
        low: fe.accuracy.low,
        high: fe.accuracy.high,
        note: `${fe.accuracy.k}/${fe.accuracy.n}`,
      },
      {
        label: 'with an error',
        value: fe.onErroneous.value,
        low: fe.onErroneous.low,
        high: fe.onErroneous.high,
        note: `${fe.onErroneous.k}/${fe.onErroneous.n}`,
      },
      {
        label: 'without',
        value: fe.onCorrect.value,
        low: fe.onCorrect.low,
        high: fe.onCorrect.high,
        note: `${fe.onCorrect.k}/${fe.onCorrect.n}`,
      },
    ],
  });
  const interval = m.stepRoc.interval
    ? ` <span class="ci">[${m.stepRoc.interval.low.toFixed(2)}, ${m.stepRoc.interval.high.toFixed(2)}]</span>`
    : '';
  const d = m.errorDetection;
  return [
    headline,
    section(
      'Does the scorer find the wrong steps?',
      `Steps up to each solution's first labelled error; a step counts as right when labelled +1 or 0. A step is flagged wrong when its score is below ${m.threshold}; the predicted first error is the first flagged step, or "no error".`,
      charts(rocChart, reliability, firstErrorChart),
      table(
        ['measure', 'value'],
        [
          ['solutions / steps', `${m.solutions} / ${m.steps}${smallSampleMark(m.steps, 'step figures')}`],
          ['step AUROC [95 % CI]', `${num(m.stepRoc.auroc)}${interval}`],
          ['step ECE', num(m.stepCalibration.ece)],
          [
            'wrong-step precision / recall / F1',
            `${num(d.precision)} / ${num(d.recall)} / ${num(d.f1)} <span class="n">(tp ${d.tp}, fp ${d.fp}, fn ${d.fn})</span>`,
          ],
          ['first-error accuracy [95 % CI]', pct(fe.accuracy)],
          ['… on solutions with an error', pct(fe.onErroneous)],
          ['… on solutions without one', pct(fe.onCorrect)],
          ['ProcessBench F1 (harmonic mean of the two)', num(fe.f1)],
        ],
      ),
    ),
  ];
}
