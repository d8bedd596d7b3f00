/** The generated-tests scoreboard from per-function records (see testsEval.ts for what each count means). */
import { mean, proportion, wilson, type Proportion } from '../math/stats';
import type { TestsItemResult } from './testsEval';
import { verdictMetrics, type VerdictMetrics } from './testVerdicts';
import { DEFAULT_CONFIRM_THRESHOLD } from '../tests/evidence';

export interface TestsMetrics {
  functions: number;
  tests: {
    admitted: number;
    oracle: number;
    rejectedLines: number;
    valid: number;
    perFunction: number | null;
  };
  /** valid / admitted over all functions, and the mean of the per-function validity. */
  validity: { pooled: Proportion; meanPerFunction: number | null };
  /** Known-wrong mutants rejected by the valid generated tests, pooled over all functions. */
  mutationScore: {
    pooled: Proportion;
    /** Mean of the per-function scores, over functions with a known-wrong mutant. */
    meanPerFunction: number | null;
    functionsScored: number;
    /** Per-function scores in 5 bins: 0, (0, ¼], (¼, ½], (½, ¾], (¾, 1]. */
    histogram: { label: string; count: number }[];
    byKind: Record<string, Proportion>;
    mutantsGenerated: number;
  };
  /** Functions whose generated (stage-5) code passes the dataset's own tests. */
  generatorPassRate: Proportion;
  /** The dataset's own tests pass on the reference (should be all: a check of data and sandbox). */
  referencePassRate: Proportion;
  rewards: { generator: number | null; testWriter: number | null };
  /** Functions where no test at all was valid. */
  functionsWithoutValidTests: number;
  /**
   * False alarms, detections and precision of "fails" verdicts at the product's default threshold
   * (testVerdicts.ts); bench/test-verdicts.mjs fits the threshold on a training run instead.
   */
  verdicts: VerdictMetrics;
}

const BINS: [string, (s: number) => boolean][] = [
  ['0', (s) => s === 0],
  ['(0, 0.25]', (s) => s > 0 && s <= 0.25],
  ['(0.25, 0.5]', (s) => s > 0.25 && s <= 0.5],
  ['(0.5, 0.75]', (s) => s > 0.5 && s <= 0.75],
  ['(0.75, 1]', (s) => s > 0.75],
];

export function summarizeTests(items: readonly TestsItemResult[]): TestsMetrics {
  const sum = (f: (r: TestsItemResult) => number) => items.reduce((n, r) => n + f(r), 0);
  const admitted = sum((r) => r.tests.admitted);
  const valid = sum((r) => r.tests.valid);
  const scores = items.map((r) => r.mutants.score).filter((s): s is number => s !== null);
  const kinds = new Map<string, { knownWrong: number; killed: number }>();
  for (const r of items)
    for (const [kind, c] of Object.entries(r.mutants.byKind)) {
      const k = kinds.get(kind) ?? { knownWrong: 0, killed: 0 };
      k.knownWrong += c.knownWrong;
      k.killed += c.killed;
      kinds.set(kind, k);
    }
  return {
    functions: items.length,
    tests: {
      admitted,
      oracle: sum((r) => r.tests.oracle),
      rejectedLines: sum((r) => r.tests.rejectedLines),
      valid,
      perFunction: items.length ? admitted / items.length : null,
    },
    validity: {
      pooled: wilson(valid, admitted),
      meanPerFunction: mean(
        items.filter((r) => r.tests.admitted).map((r) => r.tests.valid / r.tests.admitted),
      ),
    },
    mutationScore: {
      pooled: wilson(
        sum((r) => r.mutants.killed),
        sum((r) => r.mutants.knownWrong),
      ),
      meanPerFunction: mean(scores),
      functionsScored: scores.length,
      histogram: BINS.map(([label, inBin]) => ({ label, count: scores.filter(inBin).length })),
      byKind: Object.fromEntries([...kinds].sort().map(([k, c]) => [k, wilson(c.killed, c.knownWrong)])),
      mutantsGenerated: sum((r) => r.mutants.generated),
    },
    generatorPassRate: proportion(items.map((r) => r.generator.officialStatus === 'passed')),
    referencePassRate: proportion(items.map((r) => r.referencePassesOfficial)),
    rewards: {
      generator: mean(items.map((r) => r.rewards.generator)),
      testWriter: mean(items.map((r) => r.rewards.testWriter)),
    },
    functionsWithoutValidTests: items.filter((r) => r.tests.valid === 0).length,
    verdicts: verdictMetrics(items, DEFAULT_CONFIRM_THRESHOLD),
  };
}
