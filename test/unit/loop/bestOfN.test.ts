import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MathProblem } from '../../../src/core/eval/datasets';
import {
  pairedDifference,
  scoreHeldOutSamples,
  summarizeBestOfN,
  type ScoredSample,
} from '../../../src/core/loop/bestOfN';
import type { SampledSolution } from '../../../src/core/loop/solutions';
import type { StepScorer } from '../../../src/core/model/stepScorer';

const sample = (answer: string | null, correct: boolean, selfScore: number | null, prmScore: number | null) =>
  ({ solutionId: `s-${answer}-${prmScore}`, answer, correct, selfScore, prmScore }) satisfies ScoredSample;

const INFO = { kind: 'prm', name: 'test-prm' } as const;

test('every selector chooses among the same samples: the PRM, self-score, majority, the first sample, the oracle', () => {
  const problems: ScoredSample[][] = [
    // The PRM finds the one right sample; self-score and the majority go wrong.
    [sample('1', false, 1, 0.1), sample('1', false, 0.9, 0.2), sample('2', true, 0.2, 0.9)],
    // Everyone is right: the first sample is right and so is the majority.
    [sample('5', true, 0.5, 0.3), sample('5', true, 0.4, 0.8), sample('6', false, 0.9, 0.1)],
    // No sample is right: nobody can be.
    [sample('7', false, 1, 1), sample(null, false, null, null)],
  ];
  const s = summarizeBestOfN(problems, INFO);
  assert.equal(s.problems, 3);
  assert.equal(s.candidates, 3);
  assert.equal(s.selections.stepScore.k, 2);
  assert.equal(s.selections.self.k, 0, 'self-score picks the confident wrong samples');
  assert.equal(s.selections.majority.k, 1);
  assert.equal(s.selections.single.k, 1);
  assert.equal(s.selections.oracle.k, 2);
  assert.equal(s.differences.prmVsSelf.onlyFirst, 2);
  assert.equal(s.differences.prmVsSelf.onlySecond, 0);
  assert.ok(Math.abs(s.differences.prmVsSelf.difference - 2 / 3) < 1e-12);
});

test('with the scores of the PRM in use, its picks join the comparison on the same samples', () => {
  const withCurrent = (s: ScoredSample, current: number | null): ScoredSample => ({
    ...s,
    currentPrmScore: current,
  });
  const problems: ScoredSample[][] = [
    // The new PRM finds the right sample; the current one picks a wrong one.
    [withCurrent(sample('1', false, 1, 0.1), 0.9), withCurrent(sample('2', true, 0.2, 0.9), 0.1)],
    // Both find it.
    [withCurrent(sample('5', true, 0.5, 0.8), 0.7), withCurrent(sample('6', false, 0.9, 0.1), 0.2)],
    // Only the current one finds it.
    [withCurrent(sample('7', false, 1, 0.9), 0.3), withCurrent(sample('8', true, 0.1, 0.2), 0.6)],
  ];
  const s = summarizeBestOfN(problems, INFO);
  assert.equal(s.selections.currentPrm?.k, 2);
  assert.equal(s.selections.stepScore.k, 2);
  assert.equal(s.differences.prmVsCurrent?.onlyFirst, 1);
  assert.equal(s.differences.prmVsCurrent?.onlySecond, 1);
  assert.equal(s.differences.prmVsCurrent?.difference, 0);
  // Without them, nothing is claimed about a PRM that was not measured.
  const without = summarizeBestOfN(
    problems.map((row) => row.map(({ currentPrmScore: _, ...rest }) => rest)),
    INFO,
  );
  assert.equal(without.selections.currentPrm, undefined);
  assert.equal(without.differences.prmVsCurrent, undefined);
});

test('the paired interval covers the difference, and is a point when the two selectors agree everywhere', () => {
  const a = Array.from({ length: 100 }, (_, i) => i % 3 === 0);
  const b = Array.from({ length: 100 }, (_, i) => i % 5 === 0);
  const d = pairedDifference(a, b);
  assert.ok(d.interval, 'an interval');
  assert.ok(d.interval.low <= d.difference && d.difference <= d.interval.high);
  assert.ok(d.interval.low < d.interval.high);
  assert.deepEqual(pairedDifference(a, b), d, 'seeded: the same figure on a rerun');
  const same = pairedDifference(a, a);
  assert.deepEqual(same.interval, { low: 0, high: 0 });
  assert.equal(same.onlyFirst + same.onlySecond, 0);
});

test("the PRM's solution score is the product of its step probabilities, bad values held to ½", async () => {
  const asked: string[][] = [];
  const scorer: StepScorer = {
    info: INFO,
    async scoreSteps(_problem, steps) {
      asked.push([...steps]);
      return steps.map((_, i) => (i === 0 ? 0.8 : Number.NaN));
    },
  };
  const problem: MathProblem = { id: 'p', problem: 'What is $2+3$?', answer: '5' };
  const solution: SampledSolution = {
    solutionId: 'a',
    text: 'Add the numbers.\n\n2 + 3 = 5.\n\nFinal answer: $\\boxed{5}$',
    finalAnswer: '5',
    correct: true,
    finishReason: 'stop',
    selfScore: 0.75,
  };
  const empty: SampledSolution = {
    ...solution,
    solutionId: 'b',
    text: '',
    finalAnswer: null,
    correct: false,
  };
  const [row] = await scoreHeldOutSamples(scorer, [problem], [[solution, empty]]);
  assert.equal(asked.length, 1, 'a solution with no steps is not sent to the PRM');
  assert.ok(asked[0].length >= 2, `the steps were split: ${JSON.stringify(asked[0])}`);
  assert.ok(Math.abs((row[0].prmScore ?? 0) - 0.8 * 0.5 ** (asked[0].length - 1)) < 1e-12);
  assert.equal(row[0].selfScore, 0.75);
  assert.equal(row[1].prmScore, null, 'no steps, no score: it never wins a PRM choice');
});
