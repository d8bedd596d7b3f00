/**
 * The paired table of bench/variant-quality.ts on hand-made journal items: pairing, the
 * differences, their intervals, and P(correct) read on held-out problems only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildDigest,
  pairItems,
  proveTable,
  remainingEstimate,
  studentT975,
  testsTable,
  type FinishedItem,
} from '../../../bench/variant-quality-table';
import type { CandidateOutcome, ProveItemResult } from '../../../src/core/eval/proveEval';
import type { TestsItemResult } from '../../../src/core/eval/testsEval';
import { loadCalibrator } from '../../../src/core/judgment/judge';
import { splitOf } from '../../../src/core/judgment/split';
import { mulberry32 } from '../../../src/core/math/stats';
import { oneRoundItem } from '../helpers/proveItem';

function candidate(correct: boolean, random: () => number): CandidateOutcome {
  return {
    answer: correct ? '7' : String(10 + Math.floor(random() * 50)),
    correct,
    formatReward: 1,
    formatProblems: [],
    selfScore: correct ? 1 : random() < 0.5 ? 1 : 0.5,
    verifierScore: Math.min(1, Math.max(0, (correct ? 0.7 : 0.4) + (random() - 0.5) * 0.4)),
    stepScore: null,
    metaScore: null,
    weakestStep: null,
    finishReason: random() < 0.2 ? 'length' : 'stop',
  } as CandidateOutcome;
}

/** `count` problems, two candidates each; `solved(i)` says whether problem i's answer is right. */
function proveItems(
  count: number,
  solved: (i: number) => boolean,
  seed = 3,
): FinishedItem<ProveItemResult>[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, i) => {
    const right = solved(i);
    const candidates = [candidate(right, random), candidate(right && random() < 0.5, random)];
    const result = oneRoundItem(`problem-${i}`, '7', candidates, {
      final: { round: 0, candidate: 0, answer: candidates[0].answer, correct: right },
    });
    return { index: i, id: result.id, result, ms: 40_000 };
  });
}

test('items pair by id in dataset order; an item only one variant finished is left out', () => {
  const a = [
    { index: 2, id: 'c', result: 1, ms: 1 },
    { index: 0, id: 'a', result: 1, ms: 1 },
    { index: 1, id: 'b', result: 1, ms: 1 },
  ];
  const b = [
    { index: 0, id: 'a', result: 2, ms: 1 },
    { index: 2, id: 'c', result: 2, ms: 1 },
  ];
  assert.deepEqual(
    pairItems(a, b).map((p) => [p.id, p.exact.result, p.fast.result]),
    [
      ['a', 1, 2],
      ['c', 1, 2],
    ],
  );
});

test('identical variants differ by exactly 0, with a zero-width interval', () => {
  const exact = proveItems(30, (i) => i % 3 === 0);
  const t = proveTable(
    pairItems(
      exact,
      proveItems(30, (i) => i % 3 === 0),
    ),
    loadCalibrator(),
  );
  assert.equal(t.accuracy.n, 30);
  assert.equal(t.accuracy.exact, 10 / 30);
  assert.equal(t.accuracy.difference, 0);
  assert.deepEqual(t.accuracy.interval, { low: 0, high: 0 });
  assert.equal(t.accuracy.zeroInside, true);
  assert.equal(t.pCorrectAuroc.difference, 0);
});

test('a variant that loses problems shows it, in the difference, the discordant count and the interval', () => {
  const exact = proveItems(40, (i) => i % 2 === 0);
  // The fast side solves only every fourth problem: it loses 10 of the exact side's 20.
  const fast = proveItems(40, (i) => i % 4 === 0);
  const t = proveTable(pairItems(exact, fast), loadCalibrator());
  assert.equal(t.accuracy.difference, -10 / 40);
  assert.deepEqual(t.accuracy.discordant, { exactOnly: 10, fastOnly: 0 });
  assert.ok(t.accuracy.interval!.high < 0, JSON.stringify(t.accuracy.interval));
  assert.equal(t.accuracy.zeroInside, false);
  assert.equal(t.items.filter((it) => it.accuracyDifference === -1).length, 10);
});

test('P(correct) AUROC is read on the held-out problems only, with the calibrator given', () => {
  const exact = proveItems(60, (i) => i % 3 === 0);
  const t = proveTable(
    pairItems(
      exact,
      proveItems(60, (i) => i % 3 === 0, 5),
    ),
    loadCalibrator(),
  );
  const heldOut = exact.filter((e) => splitOf(e.id) === 'held-out').length;
  assert.ok(heldOut > 10 && heldOut < 50);
  assert.equal(t.pCorrectAuroc.problems, heldOut);
  assert.equal(t.pCorrectAuroc.n, heldOut);
  // Two candidates a problem, each judged (the shipped calibrator covers self and verifier scores).
  assert.equal(t.pCorrectAuroc.candidates.exact, 2 * heldOut);
  // Right candidates score higher on both signals here, so both variants rank well.
  assert.ok(t.pCorrectAuroc.exact! > 0.7 && t.pCorrectAuroc.fast! > 0.7, JSON.stringify(t.pCorrectAuroc));
  assert.ok(t.pCorrectAuroc.interval !== null);
});

function testsItem(id: string, admitted: number, valid: number, knownWrong: number, killed: number) {
  return {
    index: Number(id),
    id,
    ms: 60_000,
    result: {
      id,
      tests: { admitted, valid, oracle: admitted, rejectedLines: 0, validByStage: [] },
      mutants: {
        generated: knownWrong,
        knownWrong,
        killed,
        score: knownWrong ? killed / knownWrong : null,
        byKind: {},
      },
    } as unknown as TestsItemResult,
  };
}

test('test validity and mutation score are pooled over functions, as eval tests pools them', () => {
  const exact = [testsItem('0', 4, 2, 4, 2), testsItem('1', 6, 6, 0, 0), testsItem('2', 0, 0, 2, 0)];
  const fast = [testsItem('0', 5, 5, 4, 4), testsItem('1', 5, 1, 0, 0), testsItem('2', 2, 1, 2, 1)];
  const t = testsTable(pairItems(exact, fast));
  assert.equal(t.functions, 3);
  assert.equal(t.validity.exact, 8 / 10);
  assert.equal(t.validity.fast, 7 / 12);
  assert.equal(t.mutationScore.exact, 2 / 6);
  assert.equal(t.mutationScore.fast, 5 / 6);
  assert.ok(Math.abs(t.mutationScore.difference! - 3 / 6) < 1e-12);
  assert.deepEqual(t.totals.exact, { admitted: 10, valid: 8, knownWrong: 6, killed: 2 });
  // A function where one side admitted no test has no per-function validity difference.
  assert.equal(t.items[2].validityDifference, null);
  assert.equal(t.cost.ratio, 1);
});

test("time left: each variant's items to do times its own mean seconds, with a t interval over the pairs", () => {
  const item = (index: number, seconds: number, cpuSeconds?: number): FinishedItem<number> => ({
    index,
    id: `item-${index}`,
    result: 0,
    ms: seconds * 1000,
    ...(cpuSeconds === undefined ? {} : { cpuMs: cpuSeconds * 1000 }),
  });
  // Exact: 3 items at 100, 200, 300 s; fast: 2 items at 50, 70 s; an item past the target is ignored.
  const exact = [item(0, 100, 90), item(1, 200, 150), item(2, 300, 210), item(12, 9999)];
  const fast = [item(0, 50), item(1, 70)];
  const r = remainingEstimate(exact, fast, 10);
  assert.deepEqual(r.itemsLeft, { exact: 7, fast: 8 });
  assert.deepEqual(r.secondsPerItem, { exact: 200, fast: 60 });
  assert.equal(r.cpuSecondsPerItem.exact, 150);
  assert.equal(r.cpuSecondsPerItem.fast, null);
  assert.equal(r.seconds, 7 * 200 + 8 * 60);
  // Pairs 0 and 1 took 150 s and 270 s: mean 210, sd 84.85, t(1) = 12.706.
  const relative = (12.706 * Math.sqrt(2 * 60 ** 2)) / Math.sqrt(2) / 210;
  assert.ok(Math.abs(r.range95!.high - r.seconds! * (1 + relative)) < 1e-6);
  assert.equal(r.range95!.low, 0);
  // One pair has no spread to go by; a variant with nothing done has no estimate at all.
  assert.equal(remainingEstimate(exact, [item(0, 50)], 10).range95, null);
  assert.equal(remainingEstimate(exact, [], 10).seconds, null);
  assert.deepEqual(remainingEstimate(exact, fast, 2).itemsLeft, { exact: 0, fast: 0 });
  assert.equal(studentT975(4), 2.776);
  assert.equal(studentT975(200), 1.96);
});

test("a bundle's digest ignores where it was built, not what it holds", () => {
  const bundle = (root: string, body: string) =>
    [
      `// ${root}node_modules/@huggingface/jinja/dist/index.js`,
      `var init = __esm({ "${root}node_modules/@huggingface/jinja/dist/index.js"() { ${body} } });`,
      '//# sourceMappingURL=cli.js.map',
    ].join('\n');
  const here = buildDigest(bundle('../../main/', 'return 1;'));
  assert.equal(buildDigest(bundle('../../work/main/', 'return 1;')), here);
  assert.equal(buildDigest(bundle('', 'return 1;')), here);
  assert.notEqual(buildDigest(bundle('../../main/', 'return 2;')), here);
  assert.match(here, /^[0-9a-f]{16}$/);
});
