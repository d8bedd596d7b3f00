import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitConfirmThreshold, NEVER_CONFIRM, verdictMetrics } from '../../../src/core/eval/testVerdicts';
import type { FailEvidence, TestsItemResult } from '../../../src/core/eval/testsEval';

/** A function's verdict evidence: the confidences of the tests its reference and mutants fail. */
function item(id: string, referenceFails: number[], mutantFails: [number, boolean][][]): TestsItemResult {
  const f = (confidence: number, referencePasses = false): FailEvidence => ({ confidence, referencePasses });
  return {
    id,
    mutants: { knownWrong: mutantFails.length },
    verdicts: {
      implementations: 3,
      referenceFails: referenceFails.map((c) => f(c)),
      mutantFails: mutantFails.map((m) => m.map(([c, p]) => f(c, p))),
    },
  } as unknown as TestsItemResult;
}

const items = [
  // The reference fails a weakly backed test; its two mutants fail strongly backed valid tests.
  item(
    'a',
    [0.3],
    [
      [[0.9, true]],
      [
        [0.8, true],
        [0.3, false],
      ],
    ],
  ),
  // The reference fails a test the implementations agree on (a false alarm above 0.6).
  item('b', [0.6], [[[0.6, true]], []]),
  item('c', [], [[[1, true]]]),
];

test('false alarms count functions, detections count mutants, precision counts "fails" verdicts', () => {
  const m = verdictMetrics(items, 0.5);
  assert.deepEqual([m.falseAlarms.k, m.falseAlarms.n], [1, 3]);
  assert.deepEqual([m.detections.k, m.detections.n], [4, 5]);
  // Confirmed: b's reference (wrong), a's 0.9 and 0.8, b's mutant 0.6, c's 1 (right): 4 of 5.
  assert.deepEqual([m.precision.k, m.precision.n], [4, 5]);
  assert.equal(m.unconfirmed, 2);
  // Every failure shown, as before verdict evidence: both failing references are false alarms.
  assert.equal(verdictMetrics(items, 0).falseAlarms.k, 2);
});

test('the fitted threshold keeps false alarms within the limit on the training items and detects the most', () => {
  const fit = fitConfirmThreshold(items, 0.05);
  // Above 0.6 (b's false alarm) the most detections are kept: a's two mutants and c's.
  assert.equal(fit.threshold, 0.8);
  assert.equal(fit.train.falseAlarms.k, 0);
  assert.equal(fit.train.detections.k, 3);
  // No threshold detects anything without a false alarm: nothing is ever confirmed.
  const hopeless = [item('d', [1], [[[1, true]]])];
  assert.equal(fitConfirmThreshold(hopeless, 0.05).threshold, NEVER_CONFIRM);
});

test('a failure backed by one implementation is not confirmed under the agreement rule (journals that kept the count)', () => {
  const lone = {
    id: 'mbpp-515',
    mutants: { knownWrong: 1 },
    verdicts: {
      implementations: 3,
      // The reference (correct) fails a test only one counted implementation passes, at confidence 1.
      referenceFails: [{ confidence: 1, implementationsPassing: 1, referencePasses: false }],
      mutantFails: [[{ confidence: 1, implementationsPassing: 2, referencePasses: true }]],
    },
  } as unknown as TestsItemResult;
  const rule = verdictMetrics([lone], 0.727);
  assert.equal(rule.minAgreeing, 2);
  assert.equal(rule.falseAlarms.k, 0);
  assert.equal(rule.detections.k, 1);
  assert.deepEqual([rule.precision.k, rule.precision.n], [1, 1]);
  // The rule before: any implementation may confirm, and the correct function is shown failing.
  assert.equal(verdictMetrics([lone], 0.727, 1).falseAlarms.k, 1);
});

test('a failed docstring example shows the function failing at any threshold; left out, only the generated tests count', () => {
  const withExamples = (r: TestsItemResult, reference: boolean[], mutants: boolean[][]): TestsItemResult => ({
    ...r,
    verdicts: {
      ...r.verdicts!,
      exampleFails: {
        reference: reference.map((referencePasses, example) => ({ example, referencePasses })),
        mutants: mutants.map((m) => m.map((referencePasses, example) => ({ example, referencePasses }))),
      },
    },
  });
  // c's one mutant fails nothing confirmed at 1.01; 'd' has two mutants, the second failing no
  // generated test at all (its list is shorter) but the example; its reference fails an example too.
  const d = withExamples(item('d', [], [[[0.2, true]]]), [false], [[], [true]]);
  (d.mutants as { knownWrong: number }).knownWrong = 2;
  const all = [withExamples(items[2], [], [[true]]), d];
  const m = verdictMetrics(all, NEVER_CONFIRM);
  assert.deepEqual([m.falseAlarms.k, m.falseAlarms.n], [1, 2]);
  assert.deepEqual([m.detections.k, m.detections.n], [2, 3]);
  // Three example verdicts: two on mutants where the reference passes, one on the reference.
  assert.deepEqual([m.precision.k, m.precision.n], [2, 3]);
  const generatedOnly = verdictMetrics(all, NEVER_CONFIRM, undefined, { examples: false });
  assert.deepEqual(
    [generatedOnly.falseAlarms.k, generatedOnly.detections.k, generatedOnly.precision.n],
    [0, 0, 0],
  );
});

test('a journal without the count of agreeing implementations is bounded by the implementations the examples let count', () => {
  // One wrong test at confidence 1 on the reference; two of three implementations were set aside.
  const old = { ...item('e', [1], [[[1, true]]]), examples: { tests: 1, setAside: 2 } } as TestsItemResult;
  const m = verdictMetrics([old], 0.5);
  assert.deepEqual([m.falseAlarms.k, m.detections.k, m.precision.n], [0, 0, 0]);
  // With two counted, the count is unknown and the threshold alone decides, as before.
  const two = { ...old, examples: { tests: 1, setAside: 1 } } as TestsItemResult;
  assert.deepEqual(
    [verdictMetrics([two], 0.5).falseAlarms.k, verdictMetrics([two], 0.5).detections.k],
    [1, 1],
  );
});

test('when the examples set aside most implementations, the agreeing rest confirm nothing (held-out MBPP/541)', () => {
  // Five implementations, three set aside by the docstring's example; the two left agree with a
  // wrong test the (correct) reference fails, and with a right one a mutant fails.
  const misread = {
    id: 'mbpp-541',
    mutants: { knownWrong: 1 },
    examples: { tests: 1, setAside: 3 },
    verdicts: {
      implementations: 5,
      referenceFails: [{ confidence: 1, implementationsPassing: 2, referencePasses: false }],
      mutantFails: [[{ confidence: 1, implementationsPassing: 2, referencePasses: true }]],
    },
  } as unknown as TestsItemResult;
  const m = verdictMetrics([misread], 0.727);
  assert.deepEqual([m.falseAlarms.k, m.detections.k, m.precision.n, m.unconfirmed], [0, 0, 0, 2]);
  // The rule before: the false alarm and the detection both stand.
  const before = verdictMetrics([misread], 0.727, undefined, { misreadMayConfirm: true });
  assert.deepEqual([before.falseAlarms.k, before.detections.k], [1, 1]);
  // As many counted as set aside (three of six): the consensus may confirm.
  const half = {
    ...misread,
    examples: { tests: 1, setAside: 3 },
    verdicts: { ...misread.verdicts!, implementations: 6 },
  };
  assert.deepEqual(
    [verdictMetrics([half], 0.727).falseAlarms.k, verdictMetrics([half], 0.727).detections.k],
    [1, 1],
  );
});
