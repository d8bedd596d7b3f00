import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRewardWeights, computeRewards, DEFAULT_REWARD_WEIGHTS } from '../../../src/core/prove/rewards';

const close = (actual: number | null, expected: number) => {
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);
};

test('the default weights are the design’s α = 0.76, β = 0.24', () => {
  assert.deepEqual(DEFAULT_REWARD_WEIGHTS, { alpha: 0.76, beta: 0.24 });
});

test('good proof, honest evaluation: R = 1', () => {
  const r = computeRewards({ formatReward: 1, selfScore: 1, verifierScore: 1, metaScore: 1 });
  close(r.rScore, 1);
  close(r.rZ, 1);
  close(r.r, 1);
});

test('flawed proof evaluated honestly (0.62) beats the same proof claimed perfect (0.50)', () => {
  const honest = computeRewards({ formatReward: 1, selfScore: 0.5, verifierScore: 0.5, metaScore: 1 });
  const dishonest = computeRewards({ formatReward: 1, selfScore: 1, verifierScore: 0.5, metaScore: 1 });
  close(honest.rScore, 1);
  close(honest.r, 0.62);
  close(dishonest.rScore, 0.5);
  close(dishonest.rZ, 0.5);
  close(dishonest.r, 0.5);
  assert.ok(honest.r! > dishonest.r!);
});

test('perfect proof with a wrong self-evaluation (R_Z = 0) gets 0.76', () => {
  const r = computeRewards({ formatReward: 1, selfScore: 0, verifierScore: 1, metaScore: 1 });
  close(r.rZ, 0);
  close(r.r, 0.76);
});

test('wrong proof whose self-evaluation found the issues gets 0.24', () => {
  const r = computeRewards({ formatReward: 1, selfScore: 0, verifierScore: 0, metaScore: 1 });
  close(r.r, 0.24);
});

test('wrong format gives 0 whatever the scores are', () => {
  close(computeRewards({ formatReward: 0, selfScore: 1, verifierScore: 1, metaScore: 1 }).r, 0);
  close(computeRewards({ formatReward: 0, selfScore: null, verifierScore: null, metaScore: null }).r, 0);
});

test('hallucinated issues (R_meta = 0) cancel an accurate score', () => {
  const r = computeRewards({ formatReward: 1, selfScore: 0.5, verifierScore: 0.5, metaScore: 0 });
  close(r.rScore, 1);
  close(r.rZ, 0);
  close(r.r, 0.38);
});

test('custom weights are applied', () => {
  const r = computeRewards(
    { formatReward: 1, selfScore: 0.5, verifierScore: 1, metaScore: 0.5 },
    { alpha: 0.5, beta: 0.5 },
  );
  close(r.rZ, 0.25);
  close(r.r, 0.625);
});

test('a missing verifier or meta score leaves the total unknown instead of guessing', () => {
  assert.equal(computeRewards({ formatReward: 1, selfScore: 1, verifierScore: null, metaScore: 1 }).r, null);
  const noMeta = computeRewards({ formatReward: 1, selfScore: 1, verifierScore: 1, metaScore: null });
  close(noMeta.rScore, 1);
  assert.equal(noMeta.rZ, null);
  assert.equal(noMeta.r, null);
});

test('checkRewardWeights explains a bad weight', () => {
  assert.equal(checkRewardWeights({ alpha: 0.76, beta: 0.24 }), null);
  assert.match(checkRewardWeights({ alpha: -1, beta: 0.24 }) ?? '', /alpha must be a non-negative number/);
});
