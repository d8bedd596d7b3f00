import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeRow,
  encodeRow,
  exampleFailsFromMatrix,
  failEvidenceFromMatrix,
  shownFailing,
  type PassMatrix,
} from '../../../src/core/eval/passMatrix';

test('a row of statuses is kept as one letter per test and read back', () => {
  const row = ['passed', 'failed', 'error', 'timeout', 'uncollectable', 'flaky'] as const;
  assert.equal(encodeRow(row), 'PFETUK');
  assert.deepEqual(decodeRow('PFETUK'), row);
  // A letter a journal should not hold reads as an error, never a pass.
  assert.deepEqual(decodeRow('P?'), ['passed', 'error']);
});

test('the verdicts of a journal are recomputed from its matrix under any rule, without a model', () => {
  // Three implementations on three tests; the third implementation fails the docstring's example.
  const m: PassMatrix = {
    implementations: ['PPF', 'PPF', 'PFP'],
    counted: [true, true, false],
    reference: 'PPF',
    mutants: ['FPF', 'PFP'],
  };
  const { reference, mutants } = failEvidenceFromMatrix(m);
  // The reference fails test 2, which only the set-aside implementation passes: no evidence.
  assert.deepEqual(reference, [
    {
      test: 2,
      confidence: 0,
      implementationsPassing: 0,
      implementations: 2,
      setAside: 1,
      referencePasses: false,
    },
  ]);
  // Mutant 0 fails tests 0 and 2; test 0 is passed by both counted implementations.
  assert.deepEqual(
    mutants[0].map((f) => [f.test, f.confidence, f.implementationsPassing, f.referencePasses]),
    [
      [0, 1, 2, true],
      [2, 0, 0, false],
    ],
  );
  assert.equal(shownFailing(reference, 0.727, 2), false);
  assert.equal(shownFailing(mutants[0], 0.727, 2), true);
  // Mutant 1 fails test 1, backed by two implementations: detected with two, and with three not.
  assert.equal(shownFailing(mutants[1], 0.727, 2), true);
  assert.equal(shownFailing(mutants[1], 0.727, 3), false);
  // Had the examples set aside three of five, the two agreeing would be outnumbered: not detected.
  const misread = failEvidenceFromMatrix({
    ...m,
    implementations: [...m.implementations, 'PFP', 'PFP'],
    counted: [true, true, false, false, false],
  });
  assert.equal(shownFailing(misread.mutants[1], 0.727, 2), false);
});

test('failed docstring examples are read from the matrix: plain failures only, each with whether the reference passes it', () => {
  const m: PassMatrix = {
    implementations: ['PP'],
    counted: [true],
    reference: 'PP',
    mutants: ['PP', 'PP', 'PP'],
    examples: {
      lines: ['assert f(1) == 2', 'assert f(2) == [4, ...]', 'assert f(3) == 6'],
      implementations: ['PPP'],
      reference: 'PPF',
      // A wrong value; an ellipsis example and an error (never held against it); nothing failed.
      mutants: ['FPP', 'PFE', 'PPP'],
    },
  };
  const { reference, mutants } = exampleFailsFromMatrix(m);
  assert.deepEqual(reference, [{ example: 2, referencePasses: false }]);
  assert.deepEqual(mutants, [[{ example: 0, referencePasses: true }], [], []]);
  // A journal from before examples were kept holds none.
  const old = exampleFailsFromMatrix({ ...m, examples: undefined });
  assert.deepEqual(old, { reference: [], mutants: [[], [], []] });
});
