/** The results of an evaluation as a few lines of plain text (the CLI's stdout without --json). */
import type { EvalResult } from './evaluation';
import type { PrmMetrics } from './prmEval';
import type { ProveMetrics } from './proveSummary';
import type { Proportion } from '../math/stats';
import type { TestsMetrics } from './testsSummary';

const p = (x: Proportion) =>
  x.value === null
    ? '—'
    : `${x.value.toFixed(3)} [${x.low!.toFixed(2)}, ${x.high!.toFixed(2)}] (${x.k}/${x.n})`;
const n = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? '—' : x.toFixed(d));

export function evalSummaryText(r: EvalResult): string {
  const head = [
    `${r.kind} evaluation of ${r.model.name} on ${r.dataset.path}`,
    `items: ${r.items.finished}/${r.items.selected} finished${r.items.failed.length ? `, ${r.items.failed.length} failed` : ''}${r.complete ? '' : ' (incomplete: run again to continue)'}`,
    `time per item: ${r.timing.secondsPerItem === null ? '—' : `${r.timing.secondsPerItem.toFixed(1)} s wall`}${r.timing.cpuSecondsPerItem == null ? '' : `, ${r.timing.cpuSecondsPerItem.toFixed(1)} s CPU`} (load average ${r.timing.machine.loadAverage ?? '—'} on ${r.timing.machine.cores} cores)`,
  ];
  return [...head, ...body(r), 'intervals: 95 % Wilson (proportions), 95 % bootstrap (AUROC)', ''].join('\n');
}

function judgmentLines(m: ProveMetrics): string[] {
  const j = m.judgment;
  if (!j) return [];
  const sig = (name: keyof typeof j.signals, label: string) =>
    `${label} ${n(j.signals[name].auroc, 2)} / ${n(j.signals[name].ece, 2)}`;
  const d = (x: { mean: number | null; low: number | null; high: number | null }) =>
    x.mean === null
      ? '—'
      : `${x.mean >= 0 ? '+' : ''}${x.mean.toFixed(3)} [${x.low!.toFixed(2)}, ${x.high!.toFixed(2)}]`;
  const b = j.bestOfN;
  // A calibrator fitted by this run has a fit side; a given one may have seen some of its problems.
  const fitNote = j.fitted
    ? `fit side ${j.split.fit.problems} problems`
    : `${j.split.fit.problems} problems of this run in its fit`;
  // Fitted on other models, its ECE here measures how far their scale is from this run's.
  const others =
    j.calibrator.otherModels && j.calibrator.fittedOn ? `, fitted on ${j.calibrator.fittedOn.generator}` : '';
  return [
    `held-out judging (${j.split.heldOut.problems} problems, ${j.split.heldOut.candidates} candidates, ${j.split.heldOut.positives} right; calibrator ${j.calibrator.source}${others}, ${fitNote}):`,
    `  AUROC / ECE: ${[
      sig('pCorrect', 'P(correct)'),
      sig('selfScore', 'self'),
      sig('verifierScore', 'verifier'),
      sig('agreement', 'agreement'),
      sig('metaScore', 'meta'),
      sig('weakestStep', 'weakest step'),
    ].join(', ')}`,
    ...noiseFloorLine(j.signals.pCorrect.eceIfCalibrated),
    `  best-of-${b.candidates}: P(correct) ${n(b.picks.pCorrect.value)}, majority ${n(b.picks.majority.value)}, self ${n(b.picks.self.value)}, verifier ${n(b.picks.verifier.value)}, pass@${b.candidates} ${n(b.passAtN.value)}; P(correct) pick − majority ${d(b.differences.majority)}, − self ${d(b.differences.self)} (paired 95 % bootstrap)`,
  ];
}

/** What a perfectly calibrated P(correct) would show on the same candidates: the ECE's noise floor. */
function noiseFloorLine(floor: { mean: number; high: number } | null | undefined): string[] {
  if (!floor) return [];
  return [
    `  a perfectly calibrated P(correct) would show ECE ${n(floor.mean, 2)} on these candidates (95 % of draws ≤ ${n(floor.high, 2)}): a measured ECE below that is sample noise`,
  ];
}

function body(r: EvalResult): string[] {
  if (r.kind === 'prove') {
    const m = r.metrics as ProveMetrics;
    const sel = m.bestOfN.selections;
    return [
      `final-answer accuracy: ${p(m.accuracy)}`,
      `format rate (candidates): ${p(m.format.candidates)}; boxed answer: ${p(m.format.boxedAnswer)}`,
      `self vs verifier agreement: ${p(m.selfVsVerifier.agreement)}, mean |diff| ${n(m.selfVsVerifier.meanAbsoluteDifference)}`,
      `ECE / AUROC: self ${n(m.calibration.selfScore.ece)} / ${n(m.calibration.selfScore.roc.auroc)}, verifier ${n(m.calibration.verifierScore.ece)} / ${n(m.calibration.verifierScore.roc.auroc)}, step ${n(m.calibration.stepScore.ece)} / ${n(m.calibration.stepScore.roc.auroc)}`,
      `accuracy per round: ${m.perIteration.map((x) => `${x.round}: ${n(x.accuracy.value)}`).join(', ') || '—'}`,
      ...m.perIteration.flatMap((x) =>
        x.change
          ? [
              `  round ${x.round} (${x.change.refined} runs refined): fixed ${x.change.fixed.k}/${x.change.fixed.n} wrong answers, broke ${x.change.broke.k}/${x.change.broke.n} right ones`,
            ]
          : [],
      ),
      `best-of-${m.bestOfN.candidates}: single ${n(sel.single.value)}, majority ${n(sel.majority.value)}, verifier ${n(sel.verifier.value)}, self ${n(sel.self.value)}, step score ${n(sel.stepScore.value)}, any correct ${n(sel.oracle.value)}`,
      ...judgmentLines(m),
    ];
  }
  if (r.kind === 'tests') {
    const m = r.metrics as TestsMetrics;
    return [
      `tests: ${m.tests.admitted} admitted (${m.tests.oracle} oracle assertions; ${m.tests.rejectedLines} lines not admitted), ${m.tests.valid} valid (${p(m.validity.pooled)})`,
      `mutation score (pooled): ${p(m.mutationScore.pooled)}; mean per function ${n(m.mutationScore.meanPerFunction)}`,
      `generator pass rate on the dataset's tests: ${p(m.generatorPassRate)}`,
      `rewards: generator ${n(m.rewards.generator)}, test writer ${n(m.rewards.testWriter)}`,
      ...(m.verdicts?.functions
        ? [
            `verdicts at confirm threshold ${m.verdicts.threshold}: false alarms ${p(m.verdicts.falseAlarms)} of functions, detections ${p(m.verdicts.detections)} of known-wrong mutants, precision of "fails" ${p(m.verdicts.precision)}; ${m.verdicts.unconfirmed} failure(s) left unconfirmed`,
          ]
        : []),
    ];
  }
  const m = r.metrics as PrmMetrics;
  return [
    `steps: ${m.steps} in ${m.solutions} solutions; step AUROC ${n(m.stepRoc.auroc)}, ECE ${n(m.stepCalibration.ece)}`,
    `wrong-step F1 at ${m.threshold}: ${n(m.errorDetection.f1)} (precision ${n(m.errorDetection.precision)}, recall ${n(m.errorDetection.recall)})`,
    `first-error accuracy: ${p(m.firstError.accuracy)}; ProcessBench F1 ${n(m.firstError.f1)}`,
  ];
}
