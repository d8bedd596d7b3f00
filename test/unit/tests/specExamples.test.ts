import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleAssertions, exampleTests } from '../../../src/core/tests/specExamples';

test('doctest examples become assertions, the expected value read up to a blank line', () => {
  const doc = `Check if any two numbers are closer than the threshold.
    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)
    False
    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)
    True

    >>> print(has_close_elements([], 1))
    False`;
  assert.deepEqual(exampleAssertions(doc, 'has_close_elements'), [
    'assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False',
    'assert has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) == True',
  ]);
});

test('one-line examples with ==, arrows or "returns" become assertions; prose does not', () => {
  const doc = `Find the minimum sum of factors.
For example:
assert find_Min_Sum(12) == 7
find_Min_Sum(105) ➞ 15
find_Min_Sum(2) returns 2.
find_Min_Sum(f(1, ")"), [2, 3]) -> 4.5
find_Min_Sum is defined for positive numbers (it returns an int).`;
  assert.deepEqual(exampleAssertions(doc, 'find_Min_Sum'), [
    'assert find_Min_Sum(12) == 7',
    'assert find_Min_Sum(105) == 15',
    'assert find_Min_Sum(2) == 2',
    'assert find_Min_Sum(f(1, ")"), [2, 3]) == 4.5',
  ]);
  assert.deepEqual(exampleAssertions(undefined, 'f'), []);
  assert.deepEqual(exampleAssertions('f(1, 2', 'f'), []);
});

test('example tests are runnable assertion tests; calls that cannot match the signature are dropped', async () => {
  const taken = new Set(['s1_1']);
  const tests = await exampleTests(
    {
      name: 'add',
      language: 'python',
      signature: 'def add(a, b)',
      kind: 'function',
      docstring: '>>> add(1, 2)\n3\n>>> add(1, 2, 3)\n6',
    },
    taken,
  );
  assert.deepEqual(
    tests.map((t) => t.assertion?.line),
    ['assert add(1, 2) == 3'],
  );
  assert.equal(tests[0].stage, 0);
  assert.ok(!['s1_1'].includes(tests[0].name) && taken.has(tests[0].name));
});
