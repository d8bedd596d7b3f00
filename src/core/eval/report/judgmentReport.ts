/** The report's judging section: P(correct) and each signal alone on held-out problems, and best-of-N by P(correct). */
import type { JudgmentMetrics, PickName, SignalName } from '../proveJudgment';
import { escapeHtml } from '../../text/htmlPage';
import { num, pct, section, smallSampleMark, smallSampleNote, table } from './parts';

const SIGNALS: [SignalName, string][] = [
  ['pCorrect', 'P(correct) (calibrated combination)'],
  ['selfScore', 'self score'],
  ['verifierScore', 'verifier score'],
  ['agreement', 'answer agreement'],
  ['metaScore', 'meta-verifier score'],
  ['weakestStep', 'weakest step'],
  ['truncated', 'cut at token limit'],
  ['boxed', 'boxed answer'],
];

const PICKS: [PickName, string][] = [
  ['pCorrect', 'best by P(correct)'],
  ['majority', 'majority vote'],
  ['self', 'best by self-score'],
  ['verifier', 'best by verifier'],
  ['single', 'single sample'],
];

export function judgmentSection(j: JudgmentMetrics | undefined): string {
  if (!j) return '';
  const ci = (i: { low: number; high: number } | null) => (i ? ` [${num(i.low)}, ${num(i.high)}]` : '');
  const signals = table(
    ['signal', 'candidates', 'AUROC [95 %]', 'ECE'],
    SIGNALS.filter(([k]) => j.signals[k].count > 0).map(([k, label]) => [
      label,
      `${j.signals[k].count}${smallSampleMark(j.signals[k].count, 'AUROC and ECE')}`,
      `${num(j.signals[k].auroc)}${ci(j.signals[k].interval)}`,
      num(j.signals[k].ece),
    ]),
  );
  const b = j.bestOfN;
  const diff = (k: PickName) => {
    if (k === 'pCorrect') return '';
    const d = b.differences[k];
    return d.mean === null ? '—' : `${num(d.mean, 3)} [${num(d.low)}, ${num(d.high)}]`;
  };
  const picks = table(
    ['selection', 'accuracy [95 %]', 'P(correct) pick minus this [paired 95 %]'],
    [
      ...PICKS.map(([k, label]) => [label, pct(b.picks[k]), diff(k)]),
      [`any correct (pass@${b.candidates})`, pct(b.passAtN), ''],
    ],
  );
  return section(
    'Judging on held-out problems',
    `${j.split.rule}. Calibrator: ${escapeHtml(j.calibrator.source)}${j.calibrator.otherModels && j.calibrator.fittedOn ? ` (fitted on ${escapeHtml(j.calibrator.fittedOn.generator)}, not on this run's models)` : ''}. Held out: ${j.split.heldOut.problems} problems, ${j.split.heldOut.candidates} candidates (${j.split.heldOut.positives} right); fit side: ${j.split.fit.problems} problems. ${j.judged.k}/${j.judged.n} held-out candidates judged.`,
    smallSampleNote(j.split.heldOut.candidates, 'held-out figures'),
    signals,
    eceFloorNote(j.signals.pCorrect.eceIfCalibrated),
    picks,
  );
}

/** The ECE a perfectly calibrated P(correct) would show here: below it, a measured ECE is noise. */
function eceFloorNote(floor: { mean: number; high: number } | null | undefined): string {
  if (!floor) return '';
  return `<p>A perfectly calibrated P(correct) would show ECE ${num(floor.mean)} on these candidates (95 % of draws at most ${num(floor.high)}): a measured ECE below that is the noise of this many candidates, not miscalibration.</p>`;
}
