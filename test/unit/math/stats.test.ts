import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  auroc,
  aurocInterval,
  calibration,
  eceIfCalibrated,
  f1,
  mulberry32,
  pairedBootstrapInterval,
  percentileInterval,
  roc,
  wilson,
} from '../../../src/core/math/stats';

const close = (a: number | null, b: number, eps = 1e-4) =>
  assert.ok(a !== null && Math.abs(a - b) < eps, `${a} ≈ ${b}`);

test('Wilson intervals match the textbook values and stay inside [0, 1]', () => {
  const w = wilson(8, 10);
  close(w.value, 0.8);
  close(w.low, 0.4902, 1e-3);
  close(w.high, 0.9433, 1e-3);
  const none = wilson(0, 20);
  assert.equal(none.low, 0);
  close(none.high, 0.1611, 1e-3);
  assert.equal(wilson(0, 0).value, null);
});

test('AUROC is the probability that a right answer outscores a wrong one, ties counting one half', () => {
  assert.equal(
    auroc([
      { score: 0.9, correct: true },
      { score: 0.8, correct: true },
      { score: 0.1, correct: false },
    ]),
    1,
  );
  assert.equal(
    auroc([
      { score: 0.5, correct: true },
      { score: 0.5, correct: false },
    ]),
    0.5,
  );
  // 3 right, 2 wrong: pairs (right > wrong) = 4 of 6, one tie → (4 + 0.5) / 6.
  const points = [
    { score: 0.9, correct: true },
    { score: 0.4, correct: true },
    { score: 0.2, correct: true },
    { score: 0.4, correct: false },
    { score: 0.3, correct: false },
  ];
  close(auroc(points), 3.5 / 6);
  assert.equal(auroc([{ score: 1, correct: true }]), null, 'one class only');
  const curve = roc(points).curve;
  assert.deepEqual(curve[0], { fpr: 0, tpr: 0 });
  assert.deepEqual(curve[curve.length - 1], { fpr: 1, tpr: 1 });
  const interval = aurocInterval(points);
  assert.ok(interval && interval.low <= interval.high);
});

test('ECE weighs each bin by its size; a calibrated three-valued score has ECE 0', () => {
  const calibrated = [
    ...Array.from({ length: 4 }, (_, i) => ({ score: 0.5, correct: i < 2 })),
    ...Array.from({ length: 3 }, () => ({ score: 1, correct: true })),
    ...Array.from({ length: 3 }, () => ({ score: 0, correct: false })),
  ];
  assert.equal(calibration(calibrated).ece, 0);
  // Always sure, right half of the time: ECE 0.5.
  const overconfident = Array.from({ length: 10 }, (_, i) => ({ score: 1, correct: i % 2 === 0 }));
  const c = calibration(overconfident);
  assert.equal(c.ece, 0.5);
  assert.equal(c.bins[9].count, 10, 'a score of exactly 1 falls in the last bin');
  assert.equal(calibration([]).ece, null);
});

test('F1 of a detector from its counts', () => {
  assert.deepEqual(f1(2, 2, 0), { precision: 0.5, recall: 1, f1: 2 / 3 });
  assert.equal(f1(0, 3, 1).f1, 0);
  assert.equal(f1(0, 0, 0).f1, null);
});

test('a paired bootstrap interval: an item-level shift is found, and shared item difficulty cancels out', () => {
  // 40 items of very different difficulty; system B is exactly 0.1 better than A on every item.
  const items = Array.from({ length: 40 }, (_, i) => ({ a: (i % 10) / 10, b: (i % 10) / 10 + 0.1 }));
  const diff = (s: readonly { a: number; b: number }[]) => s.reduce((n, x) => n + x.b - x.a, 0) / s.length;
  const paired = pairedBootstrapInterval(items, diff)!;
  assert.ok(Math.abs(paired.low - 0.1) < 1e-9 && Math.abs(paired.high - 0.1) < 1e-9, JSON.stringify(paired));
  // Resampling the two sides independently would mix the difficulty in: a far wider interval.
  const random = mulberry32(7);
  const unpaired: number[] = [];
  for (let r = 0; r < 500; r++) {
    const pick = () => items[Math.floor(random() * items.length)];
    const sa = Array.from({ length: 40 }, pick);
    const sb = Array.from({ length: 40 }, pick);
    unpaired.push(sb.reduce((n, x) => n + x.b, 0) / 40 - sa.reduce((n, x) => n + x.a, 0) / 40);
  }
  const wide = percentileInterval(unpaired);
  assert.ok(wide.high - wide.low > 0.1, JSON.stringify(wide));
  // Seeded: the same call gives the same interval.
  assert.deepEqual(pairedBootstrapInterval(items, diff), paired);
});

test('a paired bootstrap interval is null without items or when the statistic is mostly undefined', () => {
  assert.equal(
    pairedBootstrapInterval([], () => 1),
    null,
  );
  assert.equal(
    pairedBootstrapInterval([1, 2, 3], () => null),
    null,
  );
  const noisy = [0, 1, 0, 1, 1, 0, 1, 0];
  const interval = pairedBootstrapInterval(noisy, (s) => s.reduce((a, b) => a + b, 0) / s.length)!;
  assert.ok(interval.low < 0.5 && interval.high > 0.5 && interval.low >= 0 && interval.high <= 1);
});

test('the ECE a calibrated predictor would show shrinks with more points, and a miscalibrated one stands above it', () => {
  const random = mulberry32(7);
  const scores = (n: number) => Array.from({ length: n }, () => random());
  // Outcomes drawn from the scores themselves: calibrated by construction.
  const calibrated = (s: number[]) => s.map((score) => ({ score, correct: random() < score }));
  const few = eceIfCalibrated(calibrated(scores(40)))!;
  const many = eceIfCalibrated(calibrated(scores(2000)))!;
  assert.ok(few.mean > many.mean, `40 points ${few.mean} vs 2000 points ${many.mean}`);
  assert.ok(few.mean <= few.high);
  // A predictor that says 0.9 for items right half the time is off by far more than its floor.
  const overconfident = Array.from({ length: 400 }, (_, i) => ({ score: 0.9, correct: i % 2 === 0 }));
  const floor = eceIfCalibrated(overconfident)!;
  assert.ok(
    calibration(overconfident).ece! > floor.high,
    `ECE ${calibration(overconfident).ece} vs ${floor.high}`,
  );
  assert.equal(eceIfCalibrated([]), null);
});
