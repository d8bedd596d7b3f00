import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../../src/cli/command';
import { fractionFlag, wholeFlag } from '../../../src/cli/flags';

test('a whole-number flag: its value, the fallback when absent, and a usage error naming the flag and rule', () => {
  assert.equal(wholeFlag('3', 'iterations', 1, 2), 3);
  assert.equal(wholeFlag(undefined, 'iterations', 1, 2), 2);
  assert.equal(wholeFlag(undefined, 'iterations', 1), undefined);
  assert.equal(wholeFlag('0', 'seed', 0), 0);
  for (const bad of ['0', '2.5', 'two', '', '1e400'])
    assert.throws(
      () => wholeFlag(bad, 'iterations', 1, 2),
      (e: unknown) =>
        e instanceof UsageError && e.message === `--iterations must be a whole number ≥ 1, not "${bad}".`,
    );
});

test('a fraction flag accepts 0 to its maximum and refuses the rest', () => {
  assert.equal(fractionFlag('0.7', 'temperature', 2, 0), 0.7);
  assert.equal(fractionFlag(undefined, 'temperature', 2, 0), 0);
  for (const bad of ['-0.1', '2.1', 'warm'])
    assert.throws(() => fractionFlag(bad, 'temperature', 2, 0), UsageError);
});
