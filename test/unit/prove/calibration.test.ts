import { test } from 'node:test';
import assert from 'node:assert/strict';
import { smallSampleWarning } from '../../../src/core/math/sampleSize';
import {
  auroc,
  calibrationReport,
  expectedCalibrationError,
  reliabilityBins,
} from '../../../src/core/prove/calibration';
import type { ProveRun } from '../../../src/core/prove/runSchema';

const s = (confidence: number, outcome: number) => ({ confidence, outcome });
const close = (a: number | null, b: number) =>
  assert.ok(a !== null && Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`);

test('AUROC, checked by hand: 3 of the 4 positive/negative pairs are ordered right', () => {
  // Positives 0.9 and 0.3, negatives 0.8 and 0.2: 0.9>0.8, 0.9>0.2, 0.3<0.8, 0.3>0.2.
  close(auroc([s(0.9, 1), s(0.8, 0), s(0.3, 1), s(0.2, 0)]), 0.75);
});

test('AUROC: ties count one half; a perfect and a reversed ranking give 1 and 0', () => {
  close(auroc([s(0.5, 1), s(0.5, 0)]), 0.5);
  // Positive 0.5 ties negative 0.5 (½) and beats negative 0.2 (1): (½ + 1) / 2.
  close(auroc([s(0.5, 1), s(0.5, 0), s(0.2, 0)]), 0.75);
  close(auroc([s(1, 1), s(0.75, 1), s(0.5, 0), s(0, 0)]), 1);
  close(auroc([s(0, 1), s(1, 0)]), 0);
});

test('AUROC is undefined with one class only or with soft outcomes', () => {
  assert.equal(auroc([s(0.2, 1), s(0.9, 1)]), null);
  assert.equal(auroc([]), null);
  assert.equal(auroc([s(0.2, 0.5), s(0.9, 1)]), null);
});

test('ECE, checked by hand: two bins half of the samples each, gaps 0.4 and 0.1', () => {
  // Bin [0.1, 0.2): confidence 0.1, accuracy 0.5 → 0.4; bin [0.9, 1]: 0.9 vs 1 → 0.1; ½·0.4 + ½·0.1.
  close(expectedCalibrationError([s(0.1, 0), s(0.1, 1), s(0.9, 1), s(0.9, 1)]), 0.25);
  close(expectedCalibrationError([s(0, 0), s(1, 1)]), 0);
  close(expectedCalibrationError([s(1, 0), s(1, 0)]), 1);
  assert.equal(expectedCalibrationError([]), null);
});

test('reliability bins are equal-width, a confidence of 1 falls in the last bin', () => {
  const bins = reliabilityBins([s(0, 0), s(0.25, 1), s(1, 1), s(0.95, 0)], 4);
  assert.deepEqual(
    bins.map((b) => [b.lower, b.upper, b.count, b.meanConfidence, b.meanOutcome]),
    [
      [0, 0.25, 1, 0, 0],
      [0.25, 0.5, 1, 0.25, 1],
      [0.5, 0.75, 0, null, null],
      [0.75, 1, 2, 0.975, 0.5],
    ],
  );
});

test('the report pairs expected self and verifier scores with answer correctness, per candidate', () => {
  const candidate = (
    self: number | null,
    verifier: number | null,
    matches: boolean | null,
    constrained = true,
  ) => ({
    constrained,
    parsed: { selfScore: self },
    verifier: verifier === null ? null : { score: verifier },
    answerCheck: matches === null ? null : { answer: 'x', reference: 'y', matches },
  });
  const runs = [
    {
      models: { generator: { name: 'A' } },
      iterations: [
        { candidates: [candidate(0.9, 0.8, true), candidate(0.7, 0.2, false)] },
        { candidates: [candidate(0.4, null, false, false), candidate(null, 1, null)] },
      ],
    },
  ] as unknown as ProveRun[];
  const r = calibrationReport(runs);
  assert.equal(r.selfVsAnswer.count, 3);
  close(r.selfVsAnswer.auroc, 1);
  assert.equal(r.verifierVsAnswer.count, 2);
  close(r.verifierVsAnswer.auroc, 1);
  assert.equal(r.selfVsVerifier.count, 2);
  assert.equal(r.selfVsVerifier.auroc, null, 'verifier scores are soft labels');
  close(r.selfVsAnswer.bias, (0.9 + 0.7 + 0.4) / 3 - 1 / 3);
  assert.deepEqual([r.constrained, r.free], [3, 1]);
});

test('figures from fewer than 30 items carry a small-sample warning', () => {
  assert.match(smallSampleWarning(1, 'ECE') ?? '', /1 item \(fewer than 30\)/);
  assert.match(smallSampleWarning(29) ?? '', /29 items/);
  assert.equal(smallSampleWarning(30), null);
  assert.equal(smallSampleWarning(0), null, 'no figure, nothing to warn about');
});

test("P(correct) is checked against correctness, and one generator's runs are shown apart from another's", () => {
  const run = (model: string, candidates: [p: number, right: boolean][]) => ({
    models: { generator: { name: model } },
    iterations: [
      {
        candidates: candidates.map(([p, right]) => ({
          constrained: true,
          parsed: { selfScore: 0.9 },
          verifier: { score: 0.9 },
          answerCheck: { answer: 'x', reference: 'y', matches: right },
          judgment: { pCorrect: p },
        })),
      },
    ],
  });
  // Model A's P separates right from wrong; model B's is reversed.
  const runs = [
    run('A', [
      [0.9, true],
      [0.1, false],
    ]),
    run('A', [
      [0.8, true],
      [0.2, false],
    ]),
    run('B', [
      [0.2, true],
      [0.7, false],
    ]),
  ] as unknown as ProveRun[];
  const all = calibrationReport(runs);
  assert.deepEqual(all.models, [
    { name: 'A', runs: 2 },
    { name: 'B', runs: 1 },
  ]);
  assert.equal(all.model, null);
  assert.equal(all.pCorrectVsAnswer.count, 6);
  const a = calibrationReport(runs, { model: 'A' });
  assert.equal(a.model, 'A');
  assert.equal(a.pCorrectVsAnswer.count, 4);
  close(a.pCorrectVsAnswer.auroc, 1);
  const b = calibrationReport(runs, { model: 'B' });
  close(b.pCorrectVsAnswer.auroc, 0);
  assert.ok(all.pCorrectVsAnswer.auroc! > 0 && all.pCorrectVsAnswer.auroc! < 1, 'pooled, true of neither');
  // The list of models is the same whichever is shown, so the panel can switch between them.
  assert.deepEqual(b.models, all.models);
});
