/** The step-scorer part of the report: step ROC and calibration, error flags, first-error accuracy. */
import type { PrmMetrics } from '../prmEval';
import { barChart } from './charts';
import { reliabilityChart, reliabilitySeries, rocChart, rocSeries } from './scoreCharts';
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
  const roc = rocChart('ROC: step scores vs labels', [rocSeries(m.stepRoc, 'steps')]);
  const reliability = reliabilityChart(
    'Reliability diagram of step scores',
    'step score',
    'share of steps not wrong',
    [
      reliabilitySeries(
        m.stepCalibration,
        `steps (ECE ${num(m.stepCalibration.ece)})`,
        (b) => `${b.count} steps`,
      ),
    ],
  );
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
      charts(roc, reliability, firstErrorChart),
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
