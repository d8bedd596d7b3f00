/** The generated-tests part of the report: validity, mutation scores, generator pass rate, rewards. */
import type { TestsMetrics } from '../testsSummary';
import { barChart } from './charts';
import { charts, num, pct, section, table, tiles } from './parts';

export function testsSections(m: TestsMetrics): string[] {
  const v = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  const headline = tiles([
    {
      label: 'Mutation score (pooled)',
      value: v(m.mutationScore.pooled.value),
      detail: `${m.mutationScore.pooled.k}/${m.mutationScore.pooled.n} known-wrong mutants`,
    },
    {
      label: 'Valid tests',
      value: v(m.validity.pooled.value),
      detail: `${m.tests.valid}/${m.tests.generated} tests`,
    },
    {
      label: 'Generator pass rate',
      value: v(m.generatorPassRate.value),
      detail: `${m.generatorPassRate.k}/${m.generatorPassRate.n} functions`,
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
    'Admitted: the sandbox could collect and run the test. Valid: the reference passes it. Rewards as in the adversarial design: generator = pass rate of its stage-5 code on the valid tests (0.5 without any); test writer = (1 − pass rate on all tests) × validity.',
    table(
      ['measure', 'value'],
      [
        ['tests generated', String(m.tests.generated)],
        ['admitted', String(m.tests.admitted)],
        ['valid (pooled) [95 % CI]', pct(m.validity.pooled)],
        ['mean validity per function', num(m.validity.meanPerFunction)],
        ["generated code passes the dataset's tests [95 % CI]", pct(m.generatorPassRate)],
        ["reference passes the dataset's tests", pct(m.referencePassRate)],
        ['mean generator reward', num(m.rewards.generator)],
        ['mean test-writer reward', num(m.rewards.testWriter)],
      ],
    ),
  );
  return [headline, mutation, suites];
}
