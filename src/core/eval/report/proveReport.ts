/** The Prove part of the report: accuracy, refinement rounds, best-of-N, calibration, agreement. */
import type { ProveMetrics, ScoreName, SelectionName } from '../proveSummary';

import { barChart, lineChart } from './charts';
import { reliabilityChart, reliabilitySeries, rocChart, rocSeries } from './scoreCharts';
import { judgmentSection } from './judgmentReport';
import { charts, num, pair, pct, section, smallSampleMark, smallSampleNote, table, tiles } from './parts';

const SCORE_NAMES: Record<ScoreName, string> = {
  selfScore: 'self-score',
  verifierScore: 'verifier score',
  stepScore: 'step score (PRM or verifier log-probs)',
};

/** Each selection: its name in the table, and its short name under a bar. */
const SELECTIONS: [SelectionName, string, string][] = [
  ['single', 'single sample', 'single'],
  ['majority', 'majority vote', 'majority'],
  ['verifier', 'best by verifier', 'verifier'],
  ['self', 'best by self-score', 'self'],
  ['stepScore', 'best by step score', 'step'],
  ['oracle', 'any correct (pass@N)', 'any'],
];

export function proveSections(m: ProveMetrics): string[] {
  return [
    headline(m),
    pair(refinement(m), bestOfN(m)),
    judgmentSection(m.judgment),
    calibrationSection(m),
    agreement(m),
    phases(m),
  ];
}

function headline(m: ProveMetrics): string {
  const v = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  return tiles([
    {
      label: 'Final-answer accuracy',
      value: v(m.accuracy.value),
      detail: `${m.accuracy.k}/${m.accuracy.n} problems${smallSampleMark(m.accuracy.n, 'rates')}`,
    },
    {
      label: 'Format correct (R_format = 1)',
      value: v(m.format.candidates.value),
      detail: `${m.format.candidates.k}/${m.format.candidates.n} candidates${smallSampleMark(m.format.candidates.n, 'rates')}`,
    },
    {
      label: 'Boxed final answer',
      value: v(m.format.boxedAnswer.value),
      detail: `${m.format.boxedAnswer.k}/${m.format.boxedAnswer.n} candidates${smallSampleMark(m.format.boxedAnswer.n, 'rates')}`,
    },
    { label: 'Rounds per problem', value: num(m.meanRounds, 1) },
    ...(m.constrained?.n
      ? [
          {
            label: 'Constrained generation',
            value: v(m.constrained.value),
            detail: `${m.constrained.k}/${m.constrained.n} problems${smallSampleMark(m.constrained.n, 'rates')}`,
          },
        ]
      : []),
  ]);
}

function phases(m: ProveMetrics): string {
  const p = m.phaseSeconds;
  if (!p || p.generate === null) return '';
  return section(
    'Where the time goes',
    'Mean seconds per problem in each phase of Prove, over all its rounds and candidates.',
    table(
      ['phase', 'seconds per problem'],
      [
        ['generation (candidates as one batch)', num(p.generate, 1)],
        ['verifier passes', num(p.verify, 1)],
        ['meta-verification', num(p.metaVerify, 1)],
        ['step scores', num(p.stepScores, 1)],
      ],
    ),
  );
}

function refinement(m: ProveMetrics): string {
  const points = m.perIteration
    .filter((r) => r.accuracy.value !== null)
    .map((r) => ({ x: r.round, y: r.accuracy.value!, low: r.accuracy.low, high: r.accuracy.high }));
  const chart = lineChart({
    title: 'Accuracy after each round',
    xLabel: 'round (1 = first proof, then refinements)',
    yLabel: 'final-answer accuracy',
    x: [0.5, Math.max(1, m.perIteration.length) + 0.5],
    y: [0, 1],
    integerX: true,
    series: [{ name: 'chosen answer', points }],
  });
  const head = [
    'round',
    'accuracy [95 % CI] (k/n)',
    'fixed: wrong → right (of those wrong before it)',
    'broke: right → wrong (of those right before it)',
    'runs refining further',
  ];
  const rows = (rounds: ProveMetrics['perIteration']) =>
    rounds.map((r) => [
      String(r.round),
      pct(r.accuracy),
      r.change ? pct(r.change.fixed) : 'first proof',
      r.change ? pct(r.change.broke) : '—',
      String(r.stillRefining),
    ]);
  // Journals summarised before the held-out rows existed have none.
  const heldOut = m.perIterationHeldOut ?? [];
  return section(
    'Does refinement help?',
    "The chosen answer of each problem after round k; a run that stopped (P(correct) or self-score reached) keeps its last answer. A round's fixes and breaks count only the runs that ran it.",
    charts(chart),
    table(head, rows(m.perIteration), 'all problems'),
    heldOut.length ? table(head, rows(heldOut), 'held-out problems (never used to fit P(correct))') : '',
  );
}

function bestOfN(m: ProveMetrics): string {
  const rows = SELECTIONS.map(([key, name]) => [name, pct(m.bestOfN.selections[key])]);
  const chart = barChart({
    title: `Best-of-${m.bestOfN.candidates} selection (first round)`,
    yLabel: 'accuracy',
    y: [0, 1],
    bars: SELECTIONS.map(([key, , short]) => {
      const p = m.bestOfN.selections[key];
      return {
        label: short,
        value: p.value,
        low: p.low,
        high: p.high,
        note: p.value === null ? undefined : p.value.toFixed(2),
      };
    }),
  });
  return section(
    `Best-of-${m.bestOfN.candidates}: which selection picks right answers?`,
    `Among the ${m.bestOfN.candidates} first-round candidates of each problem: the first one, the most common answer (equivalent answers vote together), or the highest-scored one; "any correct" is the ceiling.`,
    charts(chart),
    table(['selection', 'accuracy [95 % CI] (k/n)'], rows),
  );
}

function calibrationSection(m: ProveMetrics): string {
  const present = (Object.keys(SCORE_NAMES) as ScoreName[]).filter((k) => m.calibration[k].count > 0);
  const short = (k: ScoreName) => SCORE_NAMES[k].replace(/ \(.*\)$/, '');
  const reliability = reliabilityChart(
    'Reliability diagram',
    'score (as a probability of being right)',
    'share of answers correct',
    present.map((k) =>
      reliabilitySeries(
        m.calibration[k],
        short(k),
        (b) =>
          `${short(k)}: ${b.count} candidates, mean score ${b.meanScore!.toFixed(2)}, accuracy ${b.accuracy!.toFixed(2)}`,
      ),
    ),
  );
  const roc = rocChart(
    'ROC: scores vs correct answers',
    present.map((k) => rocSeries(m.calibration[k].roc, short(k))),
  );
  const rows = present.map((k) => {
    const c = m.calibration[k];
    const interval = c.roc.interval
      ? ` <span class="ci">[${c.roc.interval.low.toFixed(2)}, ${c.roc.interval.high.toFixed(2)}]</span>`
      : '';
    return [
      SCORE_NAMES[k],
      `${c.count}${smallSampleMark(c.count, 'ECE and AUROC')}`,
      `${c.roc.positives}`,
      num(c.ece),
      `${num(c.roc.auroc)}${interval}`,
    ];
  });
  return section(
    'Do the scores know when an answer is right?',
    'Every scored candidate of every round, its score read as the probability that its final answer is correct. ECE: expected calibration error over 10 equal-width bins (0 is perfect). AUROC: 0.5 is chance, 1 separates right from wrong perfectly.',
    smallSampleNote(Math.min(...present.map((k) => m.calibration[k].count)), 'ECE and AUROC'),
    charts(reliability, roc),
    table(['score', 'candidates', 'correct', 'ECE', 'AUROC [95 % CI]'], rows),
  );
}

function agreement(m: ProveMetrics): string {
  const a = m.selfVsVerifier;
  return section(
    'Self-score vs verifier',
    "How often the generator's own score (0, ½ or 1) equals the verifier's score rounded to the same scale, over candidates with both.",
    table(
      ['measure', 'value'],
      [
        ['candidates with both scores', `${a.pairs}${smallSampleMark(a.pairs, 'agreement figures')}`],
        ['exact agreement [95 % CI]', pct(a.agreement)],
        ['mean |self − verifier|', num(a.meanAbsoluteDifference)],
      ],
    ),
  );
}
