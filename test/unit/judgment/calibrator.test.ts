import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fitCalibrator,
  modelFor,
  parseCalibrator,
  predict,
  type LabelledCandidate,
} from '../../../src/core/judgment/calibrator';
import type { Features } from '../../../src/core/judgment/features';
import { fitLogistic, sigmoid } from '../../../src/core/judgment/logistic';
import { judge, judgmentText } from '../../../src/core/judgment/judge';
import { calibration, mulberry32 } from '../../../src/core/math/stats';

const none: Features = {
  selfScore: null,
  verifierScore: null,
  metaScore: null,
  agreement: null,
  weakestStep: null,
  learnedScore: null,
  truncated: 0,
  boxed: 1,
};

function synthetic(n: number, seed: number, p: (x1: number, x2: number) => number): LabelledCandidate[] {
  const random = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => {
    const x1 = random();
    const x2 = random();
    return {
      problem: `p${seed}-${i}`,
      features: { ...none, selfScore: x1, verifierScore: x2 },
      correct: random() < p(x1, x2),
    };
  });
}

test('the logistic fit recovers a known relationship', () => {
  const data = synthetic(6000, 7, (a, b) => sigmoid(-2 + 4 * a - 3 * b));
  const m = fitLogistic(
    data.map((d) => [d.features.selfScore!, d.features.verifierScore!]),
    data.map((d) => d.correct),
    1e-3,
  );
  const raw = m.weights.map((w, i) => w / m.scale[i]);
  const intercept = m.bias - raw.reduce((a, w, i) => a + w * m.mean[i], 0);
  assert.ok(Math.abs(raw[0] - 4) < 0.5, `weight of x1 ${raw[0]}`);
  assert.ok(Math.abs(raw[1] + 3) < 0.5, `weight of x2 ${raw[1]}`);
  assert.ok(Math.abs(intercept + 2) < 0.5, `intercept ${intercept}`);
});

test('the fit is deterministic and survives one-class data', () => {
  const data = synthetic(500, 3, (a) => a);
  assert.deepEqual(fitCalibrator(data), fitCalibrator(data));
  const all = fitLogistic([[0], [1], [0.5]], [true, true, true]);
  assert.ok(Number.isFinite(all.bias) && all.weights[0] === 0);
});

test('calibration lowers the ECE of a miscalibrated score on held-out data', () => {
  // The self-score is monotone in correctness but far from its probability (P = x³).
  const truth = (a: number) => a ** 3;
  const fit = synthetic(3000, 11, truth);
  const heldOut = synthetic(3000, 12, truth);
  const calibrator = fitCalibrator(
    fit.map((d) => ({ ...d, features: { ...d.features, verifierScore: null } })),
  );
  const raw = calibration(heldOut.map((d) => ({ score: d.features.selfScore!, correct: d.correct }))).ece!;
  const calibrated = calibration(
    heldOut.map((d) => {
      const f = { ...d.features, verifierScore: null };
      return { score: predict(modelFor(calibrator, f)!, f), correct: d.correct };
    }),
  ).ece!;
  assert.ok(raw > 0.15, `raw ECE ${raw}`);
  assert.ok(calibrated < 0.05, `calibrated ECE ${calibrated}`);
  assert.ok(calibrated < raw / 3);
});

test('a candidate missing a signal is judged by a model over the signals it has, or not at all', () => {
  const calibrator = fitCalibrator(synthetic(800, 5, (a, b) => sigmoid(-1 + 3 * a - 2 * b)));
  assert.deepEqual(calibrator.models[0].features, ['selfScore', 'verifierScore', 'truncated', 'boxed']);
  const selfOnly = judge(calibrator, { ...none, selfScore: 0.9 });
  assert.ok(selfOnly);
  assert.deepEqual(
    selfOnly.evidence.map((e) => e.feature),
    ['selfScore', 'truncated', 'boxed'],
  );
  // A signal the calibrator never saw is listed as unused, not silently ignored.
  const withMeta = judge(calibrator, { ...none, selfScore: 0.9, verifierScore: 0.1, metaScore: 1 })!;
  assert.deepEqual(withMeta.unused, ['metaScore']);
  // Models over the always-known signals alone exist, so only a calibrator without them refuses.
  const empty = { ...calibrator, models: calibrator.models.filter((m) => m.features.includes('selfScore')) };
  assert.equal(judge(empty, none), null);
  assert.equal(judgmentText(null), 'no calibrated judgment');
});

test('a calibrator survives its JSON round trip and a malformed file is named', () => {
  const calibrator = fitCalibrator(synthetic(400, 9, (a) => a));
  const parsed = parseCalibrator(JSON.parse(JSON.stringify(calibrator)));
  assert.ok('calibrator' in parsed);
  assert.deepEqual(parsed.calibrator, calibrator);
  assert.match((parseCalibrator({ schema: 'x' }) as { error: string }).error, /not a judging calibrator/);
  const broken = { ...calibrator, models: [{ ...calibrator.models[0], weights: [1] }] };
  assert.match((parseCalibrator(broken) as { error: string }).error, /malformed/);
});
