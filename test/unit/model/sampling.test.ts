import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  SeededRandom,
  argmax,
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
