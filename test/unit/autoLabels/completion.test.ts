import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completionLabels, type ContinuationProbe } from '../../../src/core/autoLabels/completion';
import { splitSteps } from '../../../src/core/steps/split';

const TEXT = ['Let x = 2.', 'Then 2x = 4.', 'So 2x + 1 = 6.', 'Hence the answer is \\boxed{6}.'].join('\n');
const solution = (finalAnswerCorrect: boolean) => ({
  text: TEXT,
  steps: splitSteps(TEXT).map((s) => ({ text: s.text, end: s.end })),
  finalAnswerCorrect,
});

/** A probe whose continuations reach the answer from prefixes ending before `firstBadStep`. */
function probeBrokenAt(firstBadStep: number, calls: string[]): ContinuationProbe {
  return async (prefix, samples) => {
    calls.push(prefix);
    const stepsInPrefix = prefix.split('\n').length;
    return Array.from({ length: samples }, (_, i) => stepsInPrefix - 1 < firstBadStep && i === 0);
  };
}

test('a solution with the right final answer is positive at every step, with no sampling', async () => {
  const calls: string[] = [];
  const labels = await completionLabels(solution(true), probeBrokenAt(0, calls), {
    samplesPerStep: 4,
    search: 'first-error',
  });
  assert.deepEqual(
    labels.map((l) => [l.rating, l.evidence]),
    Array(4).fill([1, 'final-answer']),
  );
  assert.equal(calls.length, 0);
});

test('every-step search labels up to the first step no continuation recovers from', async () => {
  const calls: string[] = [];
  const labels = await completionLabels(solution(false), probeBrokenAt(2, calls), {
    samplesPerStep: 3,
    search: 'every-step',
  });
  assert.deepEqual(
    labels.map((l) => l.rating),
    [1, 1, -1],
  );
  assert.deepEqual(
    labels.map((l) => [l.samples, l.successes]),
    [
      [3, 1],
      [3, 1],
      [3, 0],
    ],
  );
  // Prefixes end exactly where a step ends: the probe sees the solution's own text.
  assert.deepEqual(calls, [
    'Let x = 2.',
    'Let x = 2.\nThen 2x = 4.',
    'Let x = 2.\nThen 2x = 4.\nSo 2x + 1 = 6.',
  ]);
});

test('first-error search finds the same step as every-step search, with fewer probes', async () => {
  for (let bad = 0; bad < 4; bad++) {
    const every: string[] = [];
    const binary: string[] = [];
    const a = await completionLabels(solution(false), probeBrokenAt(bad, every), {
      samplesPerStep: 2,
      search: 'every-step',
    });
    const b = await completionLabels(solution(false), probeBrokenAt(bad, binary), {
      samplesPerStep: 2,
      search: 'first-error',
    });
    assert.deepEqual(
      b.map((l) => l.rating),
      a.map((l) => l.rating),
      `first bad step ${bad}`,
    );
    // The first step is probed first (one probe when it fails), then the rest is bisected.
    assert.ok(binary.length <= (bad === 0 ? 1 : 3), `${binary.length} probes for 4 steps, first bad ${bad}`);
    assert.equal(binary[0], 'Let x = 2.', 'the first probe is the first step');
  }
  // On a long solution, bisection still beats probing every step.
  const long = Array.from({ length: 16 }, (_, i) => `Step ${i}: x = ${i}.`).join('\n');
  const longSolution = {
    text: long,
    steps: splitSteps(long).map((s) => ({ text: s.text, end: s.end })),
    finalAnswerCorrect: false,
  };
  const calls: string[] = [];
  const labels = await completionLabels(longSolution, probeBrokenAt(11, calls), {
    samplesPerStep: 2,
    search: 'first-error',
  });
  assert.equal(labels.length, 12);
  assert.equal(labels[11].rating, -1);
  assert.ok(calls.length <= 5, `${calls.length} probes for 16 steps`);
});

test('a wrong solution whose every prefix still recovers blames its last step, read from its final answer', async () => {
  const labels = await completionLabels(solution(false), probeBrokenAt(99, []), {
    samplesPerStep: 2,
    search: 'every-step',
  });
  assert.deepEqual(
    labels.map((l) => l.rating),
    [1, 1, 1, -1],
  );
  assert.equal(labels[3].evidence, 'final-answer');
});

test('samplesPerStep must be a positive integer', async () => {
  await assert.rejects(
    completionLabels(solution(false), probeBrokenAt(1, []), { samplesPerStep: 0, search: 'every-step' }),
    /samplesPerStep must be a positive integer/,
  );
});
