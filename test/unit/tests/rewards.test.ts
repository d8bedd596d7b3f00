import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  rewardSupportText,
  scoreSuite,
  testWriterReward,
  type DualVerdict,
  type VerdictStatus,
} from '../../../src/core/tests/rewards';

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

test('a flaky verdict is neither a valid test nor a pass of the generated code', () => {
  const s = scoreSuite(
    [v('a', 'flaky', 'passed'), v('b', 'passed', 'flaky'), v('c', 'passed', 'passed')],
    'user',
  );
  assert.equal(s.valid, 2, 'a is not valid: it is flaky on the reference');
  assert.equal(s.generatorPassRateValid, 0.5, 'of b and c, only c passes reliably on the generated code');
  assert.deepEqual(
    s.disagreements.map((d) => [d.name, d.onUser]),
    [['a', 'flaky']],
  );
});

const sampled = (name: string, onUser: VerdictStatus, samples: VerdictStatus[]): DualVerdict => ({
  name,
  stage: 1,
  onUser,
  onGenerated: samples[0],
  onSamples: samples,
  input: `f(${name})`,
});

test('agreement mode trusts generated code only when the required independent samples agree', () => {
  const verdicts = [
    sampled('a', 'passed', ['passed', 'passed', 'passed']),
    sampled('b', 'failed', ['passed', 'passed', 'passed']),
    sampled('c', 'failed', ['passed', 'passed', 'passed']),
    sampled('d', 'uncollectable', ['uncollectable', 'uncollectable', 'uncollectable']),
  ];
  const s = scoreSuite(verdicts, 'agreement', 3);
  assert.equal(s.reference, 'generated');
  assert.match(s.referenceReason, /3 independent generated implementations agree/);
  assert.equal(s.validity, 0.75);
  // The user's failures are disagreements to review, with their evidence.
  assert.deepEqual(
    s.disagreements.map((d) => [d.name, d.input, d.samplesPassing, d.samples]),
    [
      ['b', 'f(b)', 3, 3],
      ['c', 'f(c)', 3, 3],
      ['d', 'f(d)', 0, 3],
    ],
  );
});

test('one generated implementation, or samples that disagree, never replace the user function', () => {
  // Issue 19: a single implementation that misread the task passed more generated tests.
  const single = scoreSuite([v('a', 'failed', 'passed'), v('b', 'failed', 'passed')], 'agreement', 3);
  assert.equal(single.reference, 'user');
  assert.match(single.referenceReason, /needs 3 independent implementations.*1 of 1 agree/);
  const split = scoreSuite(
    [
      sampled('a', 'failed', ['passed', 'failed', 'passed']),
      sampled('b', 'failed', ['passed', 'passed', 'failed']),
    ],
    'agreement',
    3,
  );
  assert.equal(split.reference, 'user');
  assert.match(split.referenceReason, /1 of 3 agree/);
  assert.equal(split.validity, 0);
  assert.equal(split.disagreements.length, 2);
});

test('the user function is the reference by default; its failures are disagreements, not bugs', () => {
  const s = scoreSuite([v('a', 'passed', 'passed'), v('b', 'failed', 'passed')], 'user');
  assert.equal(s.reference, 'user');
  assert.equal(s.valid, 1);
  assert.deepEqual(
    s.disagreements.map((d) => [d.name, d.samplesPassing, d.samples]),
    [['b', 1, 1]],
  );
});

test('timeouts and errors never count as passes', () => {
  const s = scoreSuite([v('a', 'passed', 'timeout'), v('b', 'passed', 'error')], 'user');
  assert.equal(s.generatorReward, 0);
  assert.equal(s.testWriterReward, 1);
});

test('rewards state the tests they rest on', () => {
  assert.equal(
    rewardSupportText({ generatorReward: 1, testWriterReward: 0.05, valid: 1, total: 10 }),
    'generator reward 1.00 on 1 valid test of 10; test-writer reward 0.05 on 10 tests',
  );
  assert.equal(
    rewardSupportText({ generatorReward: 0.5, testWriterReward: 0, valid: 0, total: 3 }),
    'generator reward 0.50 (neutral: no valid test of 3); test-writer reward 0.00 on 3 tests',
  );
});
