import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  SeededRandom,
  argmax,
  expNonPositive,
  logSumExp,
  selectToken,
  tokenLogprob,
  topCandidates,
} from '../../../src/core/model/sampling';

const draws = (seed: number, count: number) => {
  const r = new SeededRandom(seed);
  return Array.from({ length: count }, () => r.next());
};

test('the same seed gives the same stream, different seeds differ, values lie in [0, 1)', () => {
  assert.deepEqual(draws(7, 50), draws(7, 50));
  assert.notDeepEqual(draws(7, 50), draws(8, 50));
  for (const v of draws(123, 1000)) assert.ok(v >= 0 && v < 1);
});

test('greedy picks the largest logit and does not consume randomness', () => {
  const r = new SeededRandom(1);
  assert.equal(selectToken([0.1, 3, 2], { temperature: 0 }, r), 1);
  assert.equal(r.next(), new SeededRandom(1).next());
});

test('banned tokens (EOS before minTokens) are never chosen', () => {
  const r = new SeededRandom(1);
  assert.equal(selectToken([0, 10, 2], { temperature: 0 }, r, new Set([1])), 2);
  for (let i = 0; i < 100; i++)
    assert.notEqual(selectToken([0, 10, 2], { temperature: 1 }, r, new Set([1])), 1);
});

test('a banned token changes sampling exactly as masking it out of the row would', () => {
  // The ban is applied to the weights rather than to a copy of the row: the draws must be the
  // ones a masked row gives, token for token, for the same random stream.
  const row = [1.5, 3, 0.2, 2.9, -1, 2.5];
  const masked = [1.5, -Infinity, 0.2, 2.9, -Infinity, 2.5];
  const banned = new Set([1, 4]);
  const a = new SeededRandom(11);
  const b = new SeededRandom(11);
  for (let i = 0; i < 2000; i++) {
    assert.equal(
      selectToken(row, { temperature: 0.8 }, a, banned),
      selectToken(masked, { temperature: 0.8 }, b),
    );
  }
  // With a top-k cut the k tokens are the k best allowed ones.
  const seen = new Set<number>();
  const r = new SeededRandom(5);
  for (let i = 0; i < 500; i++) seen.add(selectToken(row, { temperature: 5, topK: 2 }, r, banned));
  assert.deepEqual([...seen].sort(), [3, 5]);
});

test('a banned favourite that outweighs every other token by far still leaves an allowed pick', () => {
  // exp(-2000) underflows: every allowed weight is 0 beside the banned one.
  const r = new SeededRandom(2);
  for (let i = 0; i < 50; i++) {
    const token = selectToken([0, 2000, -3], { temperature: 1 }, r, new Set([1]));
    assert.ok(token === 0 || token === 2, `picked ${token}`);
  }
  assert.equal(selectToken([0, 2000, -3], { temperature: 0 }, r, new Set([1])), 0);
});

test('sampling over a smaller vocabulary after a larger one reads only its own weights', () => {
  const r = new SeededRandom(9);
  selectToken(
    Array.from({ length: 1000 }, () => 50),
    { temperature: 1 },
    r,
  );
  for (let i = 0; i < 200; i++) assert.ok(selectToken([0, 1, 2], { temperature: 1 }, r) < 3);
});

test('top-k keeps only the k most probable tokens', () => {
  const r = new SeededRandom(3);
  const logits = [5, 4, 3, 2, 1, 0];
  const seen = new Set<number>();
  for (let i = 0; i < 500; i++) seen.add(selectToken(logits, { temperature: 2, topK: 2 }, r));
  assert.deepEqual([...seen].sort(), [0, 1]);
});

test('top-p keeps the smallest set reaching the mass, the crossing token included', () => {
  const probs = Float64Array.from([0.05, 0.5, 0.3, 0.15]);
  assert.deepEqual(topCandidates(probs, undefined, 0.5), [1]);
  assert.deepEqual(topCandidates(probs, undefined, 0.6), [1, 2]);
  assert.deepEqual(topCandidates(probs, undefined, 0.81), [1, 2, 3]);
  // After top-k the nucleus is taken over the renormalised top-k mass: 0.5/0.8 >= 0.6.
  assert.deepEqual(topCandidates(probs, 2, 0.6), [1]);
});

test('top-p on a large flat-tailed vocabulary still finds the exact nucleus', () => {
  const vocab = 50000;
  const probs = new Float64Array(vocab).fill(0.5 / (vocab - 1));
  probs[42] = 0.5;
  const nucleus = topCandidates(probs, undefined, 0.5 + (10.5 * 0.5) / (vocab - 1));
  assert.equal(nucleus[0], 42);
  assert.equal(nucleus.length, 12);
});

test('sampling frequencies follow the softmax at temperature 1', () => {
  const r = new SeededRandom(11);
  const logits = [Math.log(0.7), Math.log(0.2), Math.log(0.1)];
  const counts = [0, 0, 0];
  for (let i = 0; i < 20000; i++) counts[selectToken(logits, { temperature: 1 }, r)]++;
  assert.ok(Math.abs(counts[0] / 20000 - 0.7) < 0.02, `got ${counts}`);
  assert.ok(Math.abs(counts[2] / 20000 - 0.1) < 0.02, `got ${counts}`);
});

test('log-probabilities are those of the unwarped softmax', () => {
  const logits = [1000, 1000 + Math.log(3)];
  assert.ok(Math.abs(tokenLogprob(logits, 1) - Math.log(0.75)) < 1e-9);
  assert.ok(Number.isFinite(logSumExp(logits)));
  assert.equal(argmax(logits), 1);
});

test('the fast exponential equals Math.exp to 1e-10 wherever a softmax term matters', () => {
  for (let i = 0; i <= 2000; i++) {
    const x = -i / 19.3;
    const relative = Math.abs(expNonPositive(x) - Math.exp(x)) / Math.exp(x);
    assert.ok(relative < 1e-10, `x = ${x}: relative error ${relative}`);
  }
  assert.equal(expNonPositive(0), 1);
  assert.equal(expNonPositive(-200), 0);
  assert.equal(expNonPositive(-Infinity), 0);
  assert.ok(Number.isNaN(expNonPositive(NaN)));
  assert.equal(expNonPositive(0.5), Math.exp(0.5));
});

test('logSumExp over a vocabulary-sized row equals the direct sum, banned tokens excluded', () => {
  const r = new SeededRandom(5);
  const row = Float32Array.from({ length: 151936 }, () => 30 * r.next() - 20);
  row[7] = -Infinity;
  let max = -Infinity;
  for (const v of row) max = Math.max(max, v);
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  assert.ok(Math.abs(logSumExp(row) - (max + Math.log(sum))) < 1e-9);
  assert.equal(logSumExp([-Infinity, -Infinity]), -Infinity);
});
