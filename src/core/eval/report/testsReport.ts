/** The generated-tests part of the report: validity, mutation scores, generator pass rate, rewards. */
import type { TestsMetrics } from '../testsSummary';
import { barChart } from './charts';
import { charts, num, pct, section, smallSampleMark, table, tiles } from './parts';

export function testsSections(m: TestsMetrics): string[] {
  const v = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  const headline = tiles([
    {
      label: 'Mutation score (pooled)',
      value: v(m.mutationScore.pooled.value),
      detail: `${m.mutationScore.pooled.k}/${m.mutationScore.pooled.n} known-wrong mutants${smallSampleMark(m.mutationScore.pooled.n, 'rates')}`,
    },
    {
      label: 'Valid tests',
      value: v(m.validity.pooled.value),
      detail: `${m.tests.valid}/${m.tests.admitted} admitted tests${smallSampleMark(m.tests.admitted, 'rates')}`,
    },
    {
      label: 'Generator pass rate',
      value: v(m.generatorPassRate.value),
      detail: `${m.generatorPassRate.k}/${m.generatorPassRate.n} functions${smallSampleMark(m.generatorPassRate.n, 'rates')}`,
    },
    { label: 'Functions', value: String(m.functions), detail: `${num(m.tests.perFunction, 1)} tests each` },
  ]);
  const histogram = barChart({
    title: 'Mutation score per function',
    xLabel: 'share of known-wrong mutants rejected',
    yLabel: 'functions',
    y: [0, Math.max(1, ...m.mutationScore.histogram.map((b) => b.count))],
    bars: m.mutationScore.histogram.map((b) => ({ label: b.label, value: b.count, note: String(b.count) })),
  });
  const kinds = Object.entries(m.mutationScore.byKind);
  const kindChart = barChart({
    title: 'Mutants rejected, by mutation',
    yLabel: 'share rejected',
    y: [0, 1],
    bars: kinds.map(([kind, p]) => ({
      label: kind,
      value: p.value,
      low: p.low,
      high: p.high,
      note: `${p.k}/${p.n}`,
    })),
  });
  const mutation = section(
    'Do the generated tests catch bugs?',
    "A mutant changes one operator or constant of the reference; only mutants the dataset's own tests reject count (they are certainly wrong). A function's mutation score is the share of them that at least one valid generated test rejects.",
    charts(histogram, kindChart),
    table(
      ['measure', 'value'],
      [
        ['pooled mutation score [95 % CI]', pct(m.mutationScore.pooled)],
        [
          'mean per-function score',
          `${num(m.mutationScore.meanPerFunction)} <span class="n">over ${m.mutationScore.functionsScored} functions</span>`,
        ],
        ['mutants made / known wrong', `${m.mutationScore.mutantsGenerated} / ${m.mutationScore.pooled.n}`],
        ['functions without any valid test', String(m.functionsWithoutValidTests)],
      ],
    ),
  );
  const suites = section(
    'Generated suites and rewards',
    'Admitted: taken into the suite — a single assertion on the function, judged by the oracle out of reach of the code under test (or a whole test function where a stage wrote no assertion line), duplicates left out. Valid: the reference passes it. Rewards as in the adversarial design: generator = pass rate of its stage-5 code on the valid tests (0.5 without any); test writer = (1 − pass rate on all tests) × validity.',
    table(
      ['measure', 'value'],
      [
        ['tests admitted', String(m.tests.admitted)],
        ['… of which assertions judged by the oracle', String(m.tests.oracle)],
        ['lines of test-writer output not admitted', String(m.tests.rejectedLines)],
        ['valid (pooled) [95 % CI]', pct(m.validity.pooled)],
        ['mean validity per function', num(m.validity.meanPerFunction)],
        ["generated code passes the dataset's tests [95 % CI]", pct(m.generatorPassRate)],
        ["reference passes the dataset's tests", pct(m.referencePassRate)],
        ['mean generator reward', num(m.rewards.generator)],
        ['mean test-writer reward', num(m.rewards.testWriter)],
      ],
    ),
  );
  const vd = m.verdicts;
  const verdicts =
    vd && vd.functions
      ? section(
          'Would the product blame correct code?',
          `Each reference taken as the user's function: shown failing (a test it fails reaches the confirm threshold ${vd.threshold}) is a false alarm. Each known-wrong mutant taken as the user's function: shown failing is a detection. A "fails" verdict is correct when it is on a mutant and the reference passes that test. Below the threshold a failure is an unconfirmed expectation to review.`,
          table(
            ['measure', 'value'],
            [
              ['false alarms (functions) [95 % CI]', pct(vd.falseAlarms)],
              ['detections (known-wrong mutants) [95 % CI]', pct(vd.detections)],
              ['precision of "fails" verdicts [95 % CI]', pct(vd.precision)],
              ['failures left unconfirmed', String(vd.unconfirmed)],
            ],
          ),
        )
      : '';
  return [headline, mutation, suites, ...(verdicts ? [verdicts] : [])];
}
