import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  scoreSuite,
  testWriterReward,
  type DualVerdict,
  type VerdictStatus,
} from '../../../src/core/code/rewards';

const v = (name: string, onUser: VerdictStatus, onGenerated: VerdictStatus, stage = 1): DualVerdict => ({
  name,
  stage,
  onUser,
  onGenerated,
});

test("the seed's worked examples of the test-writer reward", () => {
  // 8 of 10 tests pass on the generated code, all tests valid: 0.2 · 1.0 = 0.20.
  assert.equal(Number(testWriterReward(0.8, 1.0, 10).toFixed(10)), 0.2);
  // Same pass rate, only 6 of 10 tests valid: 0.2 · 0.6 = 0.12 (penalised).
  assert.equal(Number(testWriterReward(0.8, 0.6, 10).toFixed(10)), 0.12);
});

test('with the user function as reference, validity and rewards follow the formulas', () => {
  const verdicts = [
    v('a', 'passed', 'passed'),
    v('b', 'passed', 'failed'),
    v('c', 'failed', 'failed'), // a wrong test: fails on the reference
    v('d', 'passed', 'passed', 2),
  ];
  const s = scoreSuite(verdicts, 'user');
  assert.equal(s.reference, 'user');
  assert.equal(s.valid, 3);
  assert.equal(s.validity, 0.75);
  assert.equal(s.generatorReward, 2 / 3, 'pass rate of the generated code on the 3 valid tests');
  assert.equal(s.generatorPassRateAll, 0.5);
  assert.equal(s.testWriterReward, (1 - 0.5) * 0.75);
});

test('no tests: generator reward is the neutral 0.5 and the test writer earns nothing', () => {
  const s = scoreSuite([], 'user');
  assert.equal(s.generatorReward, 0.5);
  assert.equal(s.testWriterReward, 0);
  assert.equal(s.validity, 0);
});

test('no valid tests: generator reward is 0.5', () => {
  const s = scoreSuite([v('a', 'failed', 'passed')], 'user');
  assert.equal(s.valid, 0);
  assert.equal(s.generatorReward, 0.5);
});

test('agreement mode takes the implementation that passes more tests as reference and flags user bugs', () => {
  const verdicts = [
    v('a', 'passed', 'passed'),
    v('b', 'failed', 'passed'),
    v('c', 'failed', 'passed'),
    v('d', 'uncollectable', 'uncollectable'),
  ];
  const s = scoreSuite(verdicts, 'agreement');
  assert.equal(s.reference, 'generated');
  assert.equal(s.validity, 0.75);
  assert.deepEqual(s.suspectedBugs, ['b', 'c']);
});

test('agreement mode keeps the user function when both pass the same tests', () => {
  const s = scoreSuite([v('a', 'passed', 'passed'), v('b', 'failed', 'failed')], 'agreement');
  assert.equal(s.reference, 'user');
  assert.match(s.referenceReason, /same 1 tests/);
  assert.equal(s.generatorReward, 1);
});

test('timeouts and errors never count as passes', () => {
  const s = scoreSuite([v('a', 'passed', 'timeout'), v('b', 'passed', 'error')], 'user');
  assert.equal(s.generatorReward, 0);
  assert.equal(s.testWriterReward, 1);
});
