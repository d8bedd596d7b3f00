import { test } from 'node:test';
import assert from 'node:assert/strict';
import { signatureProblems } from '../../../src/core/tests/signatureCheck';
import { testsFromStage } from '../../../src/core/tests/stageTests';
import { findFunctions } from '../../../src/core/tests/functions';

const merge = {
  name: 'merge_intervals',
  language: 'python' as const,
  signature: 'def merge_intervals(intervals):',
};

test('signatures as functions.ts finds them (Python without its colon) are read', async () => {
  const src =
    'from typing import List\n\ndef close(numbers: List[float], threshold: float) -> bool:\n    return True\n';
  const [fn] = await findFunctions(src, 'python');
  assert.deepEqual(
    await signatureProblems(fn, ['close([1.0], 0.5, 3)', 'close("ab", 0.5)', 'close([1.0], 0.5)']),
    [
      'close takes 2 positional arguments, but this call gives 3',
      'argument numbers is declared a list but the call passes a string literal ("ab")',
      undefined,
    ],
  );
  const [ts] = await findFunctions(
    'export const pick = (xs: number[], n: number): number => xs[n];\n',
    'typescript',
  );
  assert.deepEqual(await signatureProblems(ts, ['pick([1], 0, 2)']), [
    'pick takes 2 positional arguments, but this call gives 3',
  ]);
});

test('a call with more arguments than the Python signature takes is rejected with the counts', async () => {
  const [two, one] = await signatureProblems(merge, [
    'merge_intervals([1, 3], [2, 4])',
    'merge_intervals([[1, 3]])',
  ]);
  assert.equal(two, 'merge_intervals takes 1 positional argument, but this call gives 2');
  assert.equal(one, undefined);
});

test('Python keywords: unknown names, names given twice, missing required arguments, **kwargs', async () => {
  const f = { name: 'f', language: 'python' as const, signature: 'def f(a, b=1, *, c):' };
  const [unknown, twice, missing, ok] = await signatureProblems(f, [
    'f(1, d=2, c=3)',
    'f(1, a=2, c=3)',
    'f(1)',
    'f(1, 2, c=3)',
  ]);
  assert.equal(unknown, 'f has no parameter named d');
  assert.equal(twice, 'a is given twice (by position and by keyword)');
  assert.equal(missing, 'the call leaves out the required argument c of f');
  assert.equal(ok, undefined);
  const [anything] = await signatureProblems({ ...f, signature: 'def f(a, **kw):' }, ['f(1, zzz=2)']);
  assert.equal(anything, undefined);
  const [variadic] = await signatureProblems({ ...f, signature: 'def f(*xs):' }, ['f(1, 2, 3)']);
  assert.equal(variadic, undefined);
});

test('literal arguments that contradict a plain annotation are rejected; unions and floats for ints pass', async () => {
  const f = {
    name: 'f',
    language: 'python' as const,
    signature: 'def f(xs: list[int], n: int, s: str, u: int | None = None) -> int:',
  };
  const [listForInt, strForList, fine, union] = await signatureProblems(f, [
    'f([1], [2], "a")',
    'f("abc", 2, "a")',
    'len(f([1, 2], 2.5, "a"))',
    'f([1], 2, "a", u="x")',
  ]);
  assert.match(listForInt!, /argument n is declared a number but the call passes a list literal/);
  assert.match(strForList!, /argument xs is declared a list but the call passes a string literal/);
  assert.equal(fine, undefined);
  assert.equal(union, undefined);
});

test('TypeScript: arity from required and optional parameters, array and number annotations', async () => {
  const f = {
    name: 'clamp',
    language: 'typescript' as const,
    signature: 'export function clamp(x: number, lo: number, hi?: number): number',
  };
  const [tooMany, tooFew, ok, wrongKind] = await signatureProblems(f, [
    'clamp(1, 2, 3, 4)',
    'clamp(1)',
    'clamp(1, 2)',
    'clamp([1], 2)',
  ]);
  assert.equal(tooMany, 'clamp takes 3 positional arguments, but this call gives 4');
  assert.equal(tooFew, 'the call leaves out the required argument lo of clamp');
  assert.equal(ok, undefined);
  assert.match(wrongKind!, /declared a number but the call passes a list literal/);
  const js = { name: 'g', language: 'javascript' as const, signature: 'function g(a, ...rest)' };
  assert.deepEqual(await signatureProblems(js, ['g()', 'g(1, 2, 3)']), [undefined, undefined]);
});

test("a stage's tests leave out calls that cannot match the signature, with the reason", async () => {
  const output =
    '```python\nassert merge_intervals([1,3],[2,4]) == [[1, 4]]\nassert merge_intervals([[1, 3], [2, 4]]) == [[1, 4]]\n```';
  const { tests, rejected } = await testsFromStage(output, merge, 2, new Set(), new Set());
  assert.deepEqual(
    tests.map((t) => t.assertion?.call),
    ['merge_intervals([[1, 3], [2, 4]])'],
  );
  assert.deepEqual(rejected, [
    {
      line: 'assert merge_intervals([1,3],[2,4]) == [[1, 4]]',
      reason:
        'does not match the signature: merge_intervals takes 1 positional argument, but this call gives 2',
    },
  ]);
});

test('a str passed where the annotation says int is rejected before it runs', async () => {
  const [fn] = await findFunctions('def nth_prime(n: int) -> int:\n    return 2\n', 'python');
  assert.deepEqual(await signatureProblems(fn, ['nth_prime("3")', 'nth_prime(3)', 'nth_prime(n="3")']), [
    'argument n is declared a number but the call passes a string literal ("3")',
    undefined,
    'argument n is declared a number but the call passes a string literal ("3")',
  ]);
});

test('argument kinds that contradict every docstring example are rejected; examples that disagree decide nothing', async () => {
  const src = [
    'def merge_intervals(intervals):',
    '    """Merge overlapping intervals.',
    '',
    '    >>> merge_intervals([[1, 3], [2, 4]])',
    '    [[1, 4]]',
    '    merge_intervals([]) == []',
    '    """',
    '    return intervals',
    '',
  ].join('\n');
  const [fn] = await findFunctions(src, 'python');
  assert.deepEqual(
    await signatureProblems(fn, [
      'merge_intervals("1-3, 2-4")',
      'merge_intervals(13)',
      'merge_intervals([[5, 6]])',
    ]),
    [
      'argument intervals is a list in every example of the docstring but the call passes a string literal ("1-3, 2-4")',
      'argument intervals is a list in every example of the docstring but the call passes a number literal (13)',
      undefined,
    ],
  );
  // The two-list call is still rejected for its arity, before any kind is looked at.
  assert.match((await signatureProblems(fn, ['merge_intervals([1, 3], [2, 4])']))[0]!, /takes 1 positional/);
  // One example passes a string and another a list: the function takes either, nothing is ruled out.
  const mixed = { ...merge, docstring: '>>> merge_intervals("ab")\n1\n>>> merge_intervals([1])\n1' };
  assert.deepEqual(await signatureProblems(mixed, ['merge_intervals(3)']), [undefined]);
  // The stage's admitted tests go through the same check, with the reason kept for the panel.
  const { tests, rejected } = await testsFromStage(
    '```python\nassert merge_intervals("x") == []\nassert merge_intervals([[1, 2]]) == [[1, 2]]\n```',
    fn,
    1,
    new Set(),
    new Set(),
  );
  assert.deepEqual(
    tests.map((t) => t.assertion?.call),
    ['merge_intervals([[1, 2]])'],
  );
  assert.match(
    rejected[0].reason,
    /does not match the signature: argument intervals is a list in every example/,
  );
});
