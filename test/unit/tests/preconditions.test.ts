/**
 * The precondition rule (preconditions.ts): a generated test on which the user's function raises,
 * on an input shaped unlike every docstring example, is never a confirmed failure, however many
 * implementations return a value there; a raise on an input like an example still is. Real runs:
 * the five-stage pipeline with a scripted model, its tests in the real sandbox.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findFunctions } from '../../../src/core/tests/functions';
import { runFiveStages } from '../../../src/core/tests/pipeline';
import { createSandboxSuiteRunner } from '../../../src/core/tests/sandboxRunner';
import { evidenceText } from '../../../src/core/tests/evidence';
import { inputsCovered, raisedOn } from '../../../src/core/tests/preconditions';
import { verdictMetrics } from '../../../src/core/eval/testVerdicts';
import type { TestsItemResult } from '../../../src/core/eval/testsEval';
import { asksForTests, scriptedModel } from '../helpers/scriptedModel';

const runner = createSandboxSuiteRunner({ perTestTimeoutMs: 5000, suiteTimeoutMs: 60_000, memoryMb: 512 });

test('an input is covered when each argument has the kind and size of one an example passes there', async () => {
  const examples = ['assert rescale([1.0, 2.0, 3.0]) == [0.0, 0.5, 1.0]', 'assert f(2, k=0) == 1'];
  assert.deepEqual(
    await inputsCovered(
      'rescale',
      'python',
      [
        'assert rescale([1.0]) == [0.0]', // one element: no example passes one
        'assert rescale([]) == []', // empty
        'assert rescale((4, 5)) == [0.0, 1.0]', // several, as the example (tuple or list alike)
        'assert sorted(rescale([3.0, 1.0])) == [0.0, 1.0]', // the call inside a projection
        'assert rescale(xs) == []', // not a literal: nothing known against it
        "assert rescale('ab') == []", // another kind
      ],
      examples,
    ),
    [false, false, true, true, true, false],
  );
  assert.deepEqual(
    await inputsCovered(
      'f',
      'python',
      ['assert f(5, k=0) == 1', 'assert f(-1, k=0) == 1', 'assert f(0) == 1'],
      examples,
    ),
    [true, false, false],
  );
  // Without examples nothing says what the function accepts.
  assert.deepEqual(await inputsCovered('f', 'python', ['assert f(1) == 1'], []), [false]);
  assert.equal(
    raisedOn('rescale([1.0]) raised ZeroDivisionError: float division by zero'),
    'ZeroDivisionError',
  );
  assert.equal(raisedOn('rescale([1.0]) returned [1.0]\nassert [1.0] == [0.0]'), undefined);
});

test('a count the examples always pass equal to a sequence length must equal it in the test too', async () => {
  // MBPP's min_coins(coins, m, V): m is the number of coins in every example.
  const examples = ['assert min_coins([9, 6, 5, 1], 4, 11) == 2', 'assert min_coins([1, 2, 3], 3, 4) == 2'];
  assert.deepEqual(
    await inputsCovered(
      'min_coins',
      'python',
      [
        'assert min_coins([1, 2, 3], 10, 15) == 3', // m past the end of coins
        'assert min_coins([1, 2, 5], 3, 15) == 3', // m is the number of coins
        'assert min_coins(coins, 10, 15) == 3', // coins not a literal: nothing known against it
      ],
      examples,
    ),
    [false, true, true],
  );
  // A number that equals a length in one example and not in another is no count of it.
  assert.deepEqual(
    await inputsCovered(
      'f',
      'python',
      ["assert f('ab', 7) == 1"],
      ["assert f('abc', 3) == 1", "assert f('ab', 5) == 0"],
    ),
    [true],
  );
  // A string's length is its characters' count, escapes aside.
  assert.deepEqual(
    await inputsCovered(
      'g',
      'python',
      ["assert g('héllo', 5)", "assert g('hello', 4)"],
      ["assert g('abc', 3)"],
    ),
    [true, false],
  );
});

const USER = [
  'def rescale(numbers):',
  '    """Rescale a list of at least two numbers so that the smallest becomes 0 and the largest 1.',
  '',
  '    >>> rescale([1.0, 2.0, 3.0])',
  '    [0.0, 0.5, 1.0]',
  '    """',
  '    lo, hi = min(numbers), max(numbers)',
  '    return [(x - lo) / (hi - lo) for x in numbers]',
  '',
].join('\n');
// The implementations agree on a value for one number, which the docstring leaves out.
const LENIENT = [
  '```python',
  'def rescale(numbers):',
  '    lo, hi = min(numbers), max(numbers)',
  '    if hi == lo:',
  '        return [0.0 for _ in numbers]',
  '    return [(x - lo) / (hi - lo) for x in numbers]',
  '```',
].join('\n');
const TESTS = [
  '```python',
  'assert rescale([1.0]) == [0.0]',
  'assert rescale([2.0, 2.0, 4.0]) == [0.0, 0.0, 1.0]',
  'assert rescale([5.0, 5.0]) == [0.0, 0.0]',
  '```',
].join('\n');

test('a raise on an input unlike every example is an unconfirmed expectation, one like an example is confirmed', async () => {
  const [target] = await findFunctions(USER, 'python');
  const run = await runFiveStages({
    model: scriptedModel((p) => (asksForTests(p) ? TESTS : LENIENT)),
    target,
    fileSource: USER,
    runSuite: runner,
  });
  const byCall = new Map(run.verdicts.map((v) => [v.input, v]));
  const one = byCall.get('rescale([1.0])')!;
  const two = byCall.get('rescale([5.0, 5.0])')!;
  // Both raise ZeroDivisionError on the user's function, and every implementation returns the value.
  assert.equal(one.onUser, 'failed');
  assert.equal(one.evidence?.implementationsPassing, 3);
  assert.equal(one.verdict, 'unconfirmed');
  assert.equal(one.evidence?.outsideExamples, 'ZeroDivisionError');
  assert.match(
    evidenceText(one.evidence!),
    /raises ZeroDivisionError on an input shaped unlike every example/,
  );
  // Two numbers, as the example passes several: the same raise is a confirmed failure.
  assert.equal(two.onUser, 'failed');
  assert.equal(two.verdict, 'fails-confirmed');
  assert.equal(two.evidence?.outsideExamples, undefined);
  assert.equal(byCall.get('rescale([2.0, 2.0, 4.0])')?.verdict, 'passes');
});

test('the evaluation counts a raise outside the examples as no alarm, and can report without the rule', () => {
  const item = {
    mutants: { knownWrong: 1 },
    verdicts: {
      implementations: 3,
      referenceFails: [
        { confidence: 1, implementationsPassing: 3, referencePasses: false, raised: true, covered: false },
      ],
      mutantFails: [
        [{ confidence: 1, implementationsPassing: 3, referencePasses: true, raised: false, covered: true }],
      ],
    },
  } as unknown as TestsItemResult;
  const withRule = verdictMetrics([item], 0.727);
  assert.equal(withRule.falseAlarms.k, 0);
  assert.equal(withRule.detections.k, 1);
  const without = verdictMetrics([item], 0.727, undefined, { preconditions: false });
  assert.equal(without.falseAlarms.k, 1);
});

// The user's convention for a sum of 0 (no digits) is one the docstring's example does not reach;
// past five digits it is simply wrong.
const DIGITS = (docstringExample: boolean) =>
  [
    'def digits_of_sum(a, b):',
    '    """Number of digits of a + b.',
    ...(docstringExample ? ['', '    >>> digits_of_sum(9875, 10)', '    4'] : []),
    '    """',
    '    n, count = a + b, 0',
    '    while n > 0 and count < 5:',
    '        n //= 10',
    '        count += 1',
    '    return count',
    '',
  ].join('\n');
const DIGITS_SAMPLE = ['```python', 'def digits_of_sum(a, b):', '    return len(str(a + b))', '```'].join(
  '\n',
);
const DIGITS_TESTS = [
  '```python',
  'assert digits_of_sum(0, 0) == 1',
  'assert digits_of_sum(999999, 1) == 7',
  '```',
].join('\n');

async function digitsRun(docstringExample: boolean) {
  const source = DIGITS(docstringExample);
  const [target] = await findFunctions(source, 'python');
  const run = await runFiveStages({
    model: scriptedModel((p) => (asksForTests(p) ? DIGITS_TESTS : DIGITS_SAMPLE)),
    target,
    fileSource: source,
    runSuite: runner,
  });
  return new Map(run.verdicts.map((v) => [v.input, v]));
}

test('another value on an input unlike every example is unconfirmed; on one like an example it is confirmed', async () => {
  const byCall = await digitsRun(true);
  const zero = byCall.get('digits_of_sum(0, 0)')!;
  const big = byCall.get('digits_of_sum(999999, 1)')!;
  // Every implementation returns 1 for 0 + 0; the user's function returns 0, a case the example leaves open.
  assert.equal(zero.onUser, 'failed');
  assert.equal(zero.evidence?.implementationsPassing, 3);
  assert.equal(zero.verdict, 'unconfirmed');
  assert.equal(zero.evidence?.valueOutsideExamples, true);
  assert.equal(zero.evidence?.outsideExamples, undefined);
  assert.match(evidenceText(zero.evidence!), /returns another value on an input shaped unlike every example/);
  // Two positive numbers, as the example passes: the wrong count is a confirmed failure.
  assert.equal(big.verdict, 'fails-confirmed');
  assert.equal(big.evidence?.valueOutsideExamples, undefined);
});

test('without docstring examples a value is judged on agreement alone', async () => {
  const byCall = await digitsRun(false);
  const zero = byCall.get('digits_of_sum(0, 0)')!;
  assert.equal(zero.verdict, 'fails-confirmed');
  assert.equal(zero.evidence?.valueOutsideExamples, undefined);
});

test('the evaluation holds values outside the examples to the rule only when the docstring has examples', () => {
  const item = (examples: number) =>
    ({
      mutants: { knownWrong: 1 },
      examples: { tests: examples, setAside: 0 },
      verdicts: {
        implementations: 3,
        referenceFails: [
          { confidence: 1, implementationsPassing: 3, referencePasses: false, raised: false, covered: false },
        ],
        mutantFails: [
          [{ confidence: 1, implementationsPassing: 3, referencePasses: true, raised: false, covered: true }],
        ],
      },
    }) as unknown as TestsItemResult;
  const withRule = verdictMetrics([item(1)], 0.727);
  assert.deepEqual([withRule.falseAlarms.k, withRule.detections.k], [0, 1]);
  const before = verdictMetrics([item(1)], 0.727, undefined, { valuesOutsideExamplesMayConfirm: true });
  assert.equal(before.falseAlarms.k, 1);
  assert.equal(verdictMetrics([item(0)], 0.727).falseAlarms.k, 1);
});
