import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  agreementRate,
  majorityWinner,
  passesThresholds,
  preferenceStability,
  reliability,
  scoreConsistency,
  separation,
  variance,
  weightedQuestionReward,
  type JudgedAnswer,
  type PairJudgment,
} from '../../../src/core/practice/metrics';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);
const ans = (id: string, strength: 'strong' | 'weak', scores: number[]): JudgedAnswer => ({
  id,
  regime: strength === 'strong' ? 'greedy' : 'high-temperature',
  strength,
  scores,
});
const pj = (
  first: string,
  second: string,
  winner: string | null,
  order: 'ab' | 'ba' = 'ab',
): PairJudgment => ({ first, second, winner, order });

test('R_cons: one minus the mean per-answer variance in units of the largest one, 0.25 (hand-computed)', () => {
  // Answer a: scores 1, 0 -> mean 0.5, variance 0.25. Answer b: 0.5, 0.5 -> variance 0.
  const r = scoreConsistency([ans('a', 'strong', [1, 0]), ans('b', 'weak', [0.5, 0.5])]);
  close(r.value, 1 - (0.25 + 0) / 2 / 0.25);
  // A judge that flips between 0 and 1 scores 0, and the design's 0.8 rejects a judge whose scores
  // of one answer spread by 0.3 (1 − 0.0225 / 0.25 = 0.91 passes; 0.6 and 0 spread: 0.64 fails).
  assert.equal(scoreConsistency([ans('a', 'strong', [1, 0])]).value, 0);
  close(scoreConsistency([ans('a', 'strong', [0.6, 0.3])]).value, 1 - 0.0225 / 0.25);
  close(scoreConsistency([ans('a', 'strong', [0.6, 0])]).value, 1 - 0.09 / 0.25);
  close(variance([1, 0.5, 0]), 1 / 6);
});

test('R_cons degenerate cases: identical scores give 1; one judge pass gives 1 with a note', () => {
  assert.equal(scoreConsistency([ans('a', 'strong', [0.7, 0.7, 0.7])]).value, 1);
  const single = scoreConsistency([ans('a', 'strong', [0.2]), ans('b', 'weak', [0.9])]);
  assert.equal(single.value, 1);
  assert.match(single.note ?? '', /One judge pass/);
});

test('R_sep: strong mean minus weak mean; null without a weak regime', () => {
  close(
    separation([ans('a', 'strong', [1, 0.8]), ans('b', 'weak', [0.2, 0.4]), ans('c', 'weak', [0.3])]).value!,
    0.9 - 0.3,
  );
  const none = separation([ans('a', 'strong', [1])]);
  assert.equal(none.value, null);
  assert.match(none.note ?? '', /weak regime/);
});

test('R_stab: agreement rate of repeated pairwise judgments', () => {
  // 4 judgments of one pair, 3 name x: agreeing pairs C(3,2)+C(1,2)=3 of C(4,2)=6 -> 0.5.
  close(agreementRate(['x', 'x', 'x', 'y'])!, 0.5);
  assert.equal(agreementRate(['x', 'x']), 1);
  assert.equal(agreementRate(['x']), null);
  const stab = preferenceStability([
    pj('a', 'b', 'a'),
    pj('a', 'b', 'a', 'ba'),
    pj('a', 'c', 'a'),
    pj('c', 'a', 'c', 'ba'),
  ]);
  close(stab.value, (1 + 0) / 2);
});

test('R_stab degenerate: one judgment per pair gives 1 with a note; none gives 0', () => {
  const one = preferenceStability([pj('a', 'b', 'a')]);
  assert.equal(one.value, 1);
  assert.match(one.note ?? '', /One pairwise judgment/);
  assert.equal(preferenceStability([]).value, 0);
});

test('R_G is the weighted sum; unmeasurable separation counts 0', () => {
  const r = { rCons: 0.9, rSep: 0.5, rStab: 0.8, notes: [] };
  close(weightedQuestionReward(r, { cons: 0.4, sep: 0.3, stab: 0.3 }), 0.36 + 0.15 + 0.24);
  close(weightedQuestionReward({ ...r, rSep: null }, { cons: 0.4, sep: 0.3, stab: 0.3 }), 0.36 + 0.24);
});

test('threshold filtering keeps only questions meeting every threshold and names each miss', () => {
  const t = { cons: 0.8, sep: 0.1, stab: 0.7 };
  assert.deepEqual(passesThresholds({ rCons: 0.9, rSep: 0.2, rStab: 0.75, notes: [] }, t), {
    keep: true,
    reasons: [],
  });
  const miss = passesThresholds({ rCons: 0.7, rSep: 0.05, rStab: 0.6, notes: [] }, t);
  assert.equal(miss.keep, false);
  assert.equal(miss.reasons.length, 3);
  assert.equal(passesThresholds({ rCons: 1, rSep: null, rStab: 1, notes: [] }, t).keep, false);
  // Exactly at the threshold is kept.
  assert.equal(passesThresholds({ rCons: 0.8, rSep: 0.1, rStab: 0.7, notes: [] }, t).keep, true);
});

test('majority winner, and ties give none', () => {
  assert.equal(majorityWinner([pj('a', 'b', 'a'), pj('a', 'b', 'a'), pj('a', 'b', 'b')]), 'a');
  assert.equal(majorityWinner([pj('a', 'b', 'a'), pj('a', 'b', 'b')]), null);
  assert.equal(majorityWinner([pj('a', 'b', null)]), null);
});

test('reliability gathers all three with their notes', () => {
  const r = reliability(
    [ans('a', 'strong', [1, 1]), ans('b', 'weak', [0, 0])],
    [pj('a', 'b', 'a'), pj('a', 'b', 'a', 'ba')],
  );
  assert.deepEqual([r.rCons, r.rSep, r.rStab], [1, 1, 1]);
  assert.deepEqual(r.notes, []);
});
