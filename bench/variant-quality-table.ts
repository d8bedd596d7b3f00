/**
 * The paired quality table of two variants of one model (bench/variant-quality.ts runs them):
 * items both variants have finished, side by side, and for each figure the two values, their
 * difference (fast − exact) and a 95 % paired bootstrap interval of that difference. Pure: it reads
 * journal entries and returns plain JSON, so a unit test can check it on hand-made items.
 */
import { createHash } from 'node:crypto';
import type { ProveItemResult } from '../src/core/eval/proveEval';
import { labelledCandidates } from '../src/core/eval/proveJudgment';
import type { TestsItemResult } from '../src/core/eval/testsEval';
import type { Calibrator } from '../src/core/judgment/calibrator';
import { judge } from '../src/core/judgment/judge';
import { splitOf } from '../src/core/judgment/split';
import { auroc, mean, pairedBootstrapInterval, type ScoredOutcome } from '../src/core/math/stats';

export const VARIANTS = ['exact', 'fast'] as const;
export type Variant = (typeof VARIANTS)[number];

/** What the table needs of one finished journal line. */
export interface FinishedItem<R> {
  index: number;
  id: string;
  result: R;
  ms: number;
  /** CPU milliseconds of the CLI process (model threads included, sandbox children not). */
  cpuMs?: number;
}

export interface Pair<R> {
  index: number;
  id: string;
  exact: FinishedItem<R>;
  fast: FinishedItem<R>;
}

/** Items finished by both variants, in dataset order; an item one variant lacks is left out. */
export function pairItems<R>(exact: readonly FinishedItem<R>[], fast: readonly FinishedItem<R>[]): Pair<R>[] {
  const fastById = new Map(fast.map((f) => [f.id, f]));
  return exact
    .filter((e) => fastById.has(e.id))
    .map((e) => ({ index: e.index, id: e.id, exact: e, fast: fastById.get(e.id)! }))
    .sort((a, b) => a.index - b.index);
}

/** One figure for both variants, with the paired difference and its interval. */
export interface Compared {
  /** Items the figure is computed over (both variants, the same items). */
  n: number;
  exact: number | null;
  fast: number | null;
  /** fast − exact. */
  difference: number | null;
  /** 95 % percentile bootstrap of the difference, resampling items (paired); null when too few. */
  interval: { low: number; high: number } | null;
  /** Whether 0 lies inside the interval: no difference found at this n. */
  zeroInside: boolean | null;
}

export const RESAMPLES = 2000;

/** Compares `figure` (computed over a sample of items for one variant) between the variants. */
export function compare<T>(
  items: readonly T[],
  figure: (sample: readonly T[], variant: Variant) => number | null,
): Compared {
  const exact = items.length ? figure(items, 'exact') : null;
  const fast = items.length ? figure(items, 'fast') : null;
  const difference = exact === null || fast === null ? null : fast - exact;
  const interval = pairedBootstrapInterval(
    items,
    (s) => {
      const a = figure(s, 'exact');
      const b = figure(s, 'fast');
      return a === null || b === null ? null : b - a;
    },
    RESAMPLES,
  );
  return {
    n: items.length,
    exact,
    fast,
    difference,
    interval,
    zeroInside: interval ? interval.low <= 0 && interval.high >= 0 : null,
  };
}

const ratio = (num: number, den: number) => (den > 0 ? num / den : null);

/** Mean seconds per item of each variant and their ratio (fast / exact), over the paired items. */
function cost<R>(pairs: readonly Pair<R>[]) {
  const exact = mean(pairs.map((p) => p.exact.ms / 1000));
  const fast = mean(pairs.map((p) => p.fast.ms / 1000));
  return { secondsPerItem: { exact, fast }, ratio: exact && fast !== null ? fast / exact : null };
}

interface ProveSide {
  correct: boolean;
  answer: string | null;
  /** Every candidate of every round, scored by the calibrator (null where no model covers it). */
  judged: (ScoredOutcome & { pCorrect: number | null })[];
}

function proveSide(result: ProveItemResult, calibrator: Calibrator): ProveSide {
  return {
    correct: result.final?.correct ?? false,
    answer: result.final?.answer ?? null,
    judged: labelledCandidates([result]).map((c) => {
      const pCorrect = judge(calibrator, c.features)?.pCorrect ?? null;
      return { score: pCorrect ?? NaN, correct: c.correct, pCorrect };
    }),
  };
}

/**
 * MATH-style Prove: accuracy of the final answer on every paired problem, and the AUROC of
 * P(correct) (the given calibrator, the product's judgment) over the candidates of the held-out
 * problems only: the shipped calibrator was fitted on the fit side of the split, so a figure over
 * those problems would measure it on its own training data.
 */
export function proveTable(pairs: readonly Pair<ProveItemResult>[], calibrator: Calibrator) {
  const sides = pairs.map((p) => ({
    id: p.id,
    heldOut: splitOf(p.id) === 'held-out',
    exact: proveSide(p.exact.result, calibrator),
    fast: proveSide(p.fast.result, calibrator),
  }));
  const accuracy = compare(sides, (s, v) => mean(s.map((x) => (x[v].correct ? 1 : 0))));
  const heldOut = sides.filter((s) => s.heldOut);
  const scored = (s: readonly (typeof sides)[number][], v: Variant) =>
    s.flatMap((x) => x[v].judged.filter((j) => j.pCorrect !== null));
  const pCorrectAuroc = compare(heldOut, (s, v) => auroc(scored(s, v)));
  return {
    problems: pairs.length,
    accuracy: {
      ...accuracy,
      correct: {
        exact: sides.filter((s) => s.exact.correct).length,
        fast: sides.filter((s) => s.fast.correct).length,
      },
      // The discordant problems are all the evidence a paired comparison of accuracy has.
      discordant: {
        exactOnly: sides.filter((s) => s.exact.correct && !s.fast.correct).length,
        fastOnly: sides.filter((s) => !s.exact.correct && s.fast.correct).length,
      },
    },
    pCorrectAuroc: {
      ...pCorrectAuroc,
      problems: heldOut.length,
      candidates: { exact: scored(heldOut, 'exact').length, fast: scored(heldOut, 'fast').length },
      rightCandidates: {
        exact: scored(heldOut, 'exact').filter((j) => j.correct).length,
        fast: scored(heldOut, 'fast').filter((j) => j.correct).length,
      },
      over: 'every candidate of every round of the held-out problems (FNV-1a split of the id: odd → held-out)',
    },
    cost: cost(pairs),
    items: sides.map((s) => ({
      id: s.id,
      heldOut: s.heldOut,
      exact: { correct: s.exact.correct, answer: s.exact.answer },
      fast: { correct: s.fast.correct, answer: s.fast.answer },
      accuracyDifference: (s.fast.correct ? 1 : 0) - (s.exact.correct ? 1 : 0),
    })),
  };
}

const testsCounts = (r: TestsItemResult) => ({
  admitted: r.tests.admitted,
  valid: r.tests.valid,
  knownWrong: r.mutants.knownWrong,
  killed: r.mutants.killed,
});

/**
 * Generated tests: validity (valid / admitted tests) and mutation score (known-wrong mutants the
 * valid tests reject), each pooled over the functions as `stepwise eval tests` pools them.
 */
export function testsTable(pairs: readonly Pair<TestsItemResult>[]) {
  const sides = pairs.map((p) => ({
    id: p.id,
    exact: testsCounts(p.exact.result),
    fast: testsCounts(p.fast.result),
  }));
  const pooled =
    (num: 'valid' | 'killed', den: 'admitted' | 'knownWrong') =>
    (s: readonly (typeof sides)[number][], v: Variant) =>
      ratio(
        s.reduce((n, x) => n + x[v][num], 0),
        s.reduce((n, x) => n + x[v][den], 0),
      );
  const totals = (v: Variant) => ({
    admitted: sides.reduce((n, x) => n + x[v].admitted, 0),
    valid: sides.reduce((n, x) => n + x[v].valid, 0),
    knownWrong: sides.reduce((n, x) => n + x[v].knownWrong, 0),
    killed: sides.reduce((n, x) => n + x[v].killed, 0),
  });
  return {
    functions: pairs.length,
    validity: compare(sides, pooled('valid', 'admitted')),
    mutationScore: compare(sides, pooled('killed', 'knownWrong')),
    totals: { exact: totals('exact'), fast: totals('fast') },
    cost: cost(pairs),
    items: sides.map((s) => ({
      ...s,
      validityDifference:
        s.exact.admitted && s.fast.admitted
          ? s.fast.valid / s.fast.admitted - s.exact.valid / s.exact.admitted
          : null,
    })),
  };
}

/**
 * What is left of a suite and how long it should take, from the journals' own per-item times:
 * each variant's items still to do times that variant's mean wall seconds per finished item (the
 * two variants differ: the fast graph decodes faster, but its answers can run longer). The range
 * is a 95 % Student t interval of the mean per-pair time (exact + fast on one item) over the pairs
 * done, scaled to the items left: it assumes the items done are a fair sample of the rest and the
 * machine as loaded as it was, and leaves out the CLI's start per block (a few seconds).
 */
export function remainingEstimate<R>(
  exact: readonly FinishedItem<R>[],
  fast: readonly FinishedItem<R>[],
  target: number,
) {
  const sides = { exact, fast };
  const within = (items: readonly FinishedItem<R>[]) => items.filter((f) => f.index < target);
  const perItem = (items: readonly FinishedItem<R>[], key: 'ms' | 'cpuMs') => {
    const values = within(items)
      .map((f) => f[key])
      .filter((v): v is number => v !== undefined);
    return values.length ? values.reduce((n, v) => n + v, 0) / values.length / 1000 : null;
  };
  const left = (v: Variant) => Math.max(0, target - within(sides[v]).length);
  const wall = { exact: perItem(exact, 'ms'), fast: perItem(fast, 'ms') };
  const seconds =
    wall.exact === null || wall.fast === null ? null : left('exact') * wall.exact + left('fast') * wall.fast;
  // Per-pair times, for the spread: items both variants finished.
  const pairSeconds = pairItems(within(exact), within(fast)).map((p) => (p.exact.ms + p.fast.ms) / 1000);
  let range: { low: number; high: number } | null = null;
  if (seconds !== null && pairSeconds.length >= 2) {
    const m = pairSeconds.reduce((n, v) => n + v, 0) / pairSeconds.length;
    const sd = Math.sqrt(pairSeconds.reduce((n, v) => n + (v - m) ** 2, 0) / (pairSeconds.length - 1));
    const relative = (studentT975(pairSeconds.length - 1) * sd) / Math.sqrt(pairSeconds.length) / m;
    range = { low: Math.max(0, seconds * (1 - relative)), high: seconds * (1 + relative) };
  }
  return {
    itemsLeft: { exact: left('exact'), fast: left('fast') },
    secondsPerItem: wall,
    cpuSecondsPerItem: { exact: perItem(exact, 'cpuMs'), fast: perItem(fast, 'cpuMs') },
    seconds,
    range95: range,
    basis: `wall time of the ${pairSeconds.length} item(s) both variants finished; range: 95 % t interval of the mean per-pair time, scaled to the items left`,
  };
}

/** The 97.5 % quantile of Student's t with `df` degrees of freedom (table to 30, then 1.96). */
export function studentT975(df: number): number {
  const table = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
    2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
  ];
  if (!(df >= 1)) return NaN;
  return df <= table.length ? table[Math.floor(df) - 1] : 1.96;
}

/**
 * A digest of a bundled file (dist/cli.js, dist/modelWorker.js) that two builds of the same source
 * share wherever they were built: the bundler writes node_modules' path relative to the build
 * folder into comments and module keys, so that prefix is cut before hashing, and the source-map
 * line is dropped. Journals made by one build resume only with a build of the same code: the CLI's
 * own fingerprint holds settings and prompt digests, not the code that generates.
 */
export function buildDigest(text: string): string {
  const normalised = text
    .split('\n')
    .filter((line) => !line.startsWith('//# sourceMappingURL='))
    .join('\n')
    .replace(/[^\s"'`]*node_modules\//g, 'node_modules/');
  return createHash('sha256').update(normalised).digest('hex').slice(0, 16);
}
