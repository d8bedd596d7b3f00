import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calibrationOf, calibrationPoints } from '../../../src/core/prove/calibration';
import type { ProveRun } from '../../../src/core/prove/runSchema';

test('bins collect the mean verifier score per self-score, with the gap and the mean |self − verifier|', () => {
  const c = calibrationOf([
    { selfScore: 1, verifierScore: 1 },
    { selfScore: 1, verifierScore: 0 },
    { selfScore: 1, verifierScore: 0.5 },
    { selfScore: 0.5, verifierScore: 0.5 },
    { selfScore: 0, verifierScore: 0 },
  ]);
  assert.equal(c.count, 5);
  assert.deepEqual(
    c.bins.map((b) => [b.selfScore, b.count, b.meanVerifier, b.gap]),
    [
      [0, 1, 0, 0],
      [0.5, 1, 0.5, 0],
      [1, 3, 0.5, 0.5],
    ],
  );
  assert.equal(c.meanAbsoluteError, (0 + 1 + 0.5 + 0 + 0) / 5);
  assert.equal(c.bias, (3.5 - 2) / 5);
});

test('a perfectly calibrated generator has zero error and zero bias', () => {
  const c = calibrationOf([0, 0.5, 1].map((s) => ({ selfScore: s, verifierScore: s })));
  assert.equal(c.meanAbsoluteError, 0);
  assert.equal(c.bias, 0);
});

test('no points: empty bins and unknown error', () => {
  const c = calibrationOf([]);
  assert.equal(c.meanAbsoluteError, null);
  assert.deepEqual(
    c.bins.map((b) => b.meanVerifier),
    [null, null, null],
  );
});

test('calibrationPoints takes every candidate that has both scores', () => {
  const candidate = (selfScore: number | null, verifier: number | null) => ({
    parsed: { selfScore },
    verifier: verifier === null ? null : { score: verifier },
  });
  const runs = [
    {
      iterations: [
        { candidates: [candidate(1, 0.5), candidate(null, 1)] },
        { candidates: [candidate(0.5, null), candidate(0, 0)] },
      ],
    },
  ] as unknown as ProveRun[];
  assert.deepEqual(calibrationPoints(runs), [
    { selfScore: 1, verifierScore: 0.5 },
    { selfScore: 0, verifierScore: 0 },
  ]);
});
