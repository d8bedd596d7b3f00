/**
 * The oracle runner on real code: each language's equality, computed in the host, as the
 * language itself would compute it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAssertionLines } from '../../../src/core/tests/assertions';
import { runAssertions, runSuite } from '../../../src/core/sandbox/index';
import type { SandboxLanguage } from '../../../src/core/sandbox/types';

async function judge(language: SandboxLanguage, code: string, lines: string[], fn = 'f') {
  const { tests, rejected } = await parseAssertionLines(lines.join('\n'), language, fn);
  assert.deepEqual(rejected, [], 'every line is an admissible assertion');
  const r = await runAssertions({ language, code, tests });
  assert.equal(r.inProcess, false);
  return r.verdicts.map((v) => v.status);
}

test("python: == follows Python's rules (numbers across types, tuple vs list, unordered dicts and sets)", async () => {
  const code = `def f(x):
    return {"one": 1, "tuple": (1, 2), "dict": {"b": 2, "a": 1}, "set": {3, 1, 2}, "float": 0.1 + 0.2, "nan": float("nan"), "big": 10**40}[x]
`;
  const statuses = await judge('python', code, [
    'assert f("one") == 1.0',
    'assert f("one") == True',
    'assert f("tuple") == (1, 2)',
    'assert f("tuple") == [1, 2]',
    'assert f("dict") == {"a": 1, "b": 2}',
    'assert f("set") == {1, 2, 3}',
    'assert f("set") == frozenset({1, 2, 3})',
    'assert f("float") == 0.3',
    'assert f("float") == pytest.approx(0.3)',
    'assert math.isclose(f("float"), 0.3)',
    'assert f("nan") == float("nan")',
    'assert f("big") == 10**40',
    'assert f("big") == 10**40 + 1',
    'assert f("one") is True',
  ]);
  assert.deepEqual(statuses, [
    'passed',
    'passed',
    'passed',
    'failed',
    'passed',
    'passed',
    'passed',
    'failed',
    'passed',
    'passed',
    'failed',
    'passed',
    'failed',
    'failed',
  ]);
});

test('python: exceptions match by class, builtin hierarchy included; an unexpected one fails the test', async () => {
  const code = `class Oops(ValueError, TypeError):
    pass
def f(x):
    if x == 0:
        raise ZeroDivisionError("x is 0")
    if x == 1:
        raise Oops("mine")
    return x
`;
  const statuses = await judge('python', code, [
    'with pytest.raises(ZeroDivisionError): f(0)',
    'with pytest.raises(ArithmeticError): f(0)',
    'with pytest.raises(ValueError): f(1)',
    'with pytest.raises(Oops): f(1)',
    // A class claiming many built-in bases answers to the first branch only.
    'with pytest.raises(TypeError): f(1)',
    'with pytest.raises(ValueError): f(2)',
    'assert f(0) == 0',
  ]);
  assert.deepEqual(statuses, ['passed', 'passed', 'passed', 'passed', 'failed', 'failed', 'failed']);
});

test('javascript: strictEqual is Object.is, deepStrictEqual compares structure and prototypes', async () => {
  const code = `function f(x) {
  if (x === 'missing') throw new TypeError('no such value');
  return { zero: -0, nan: NaN, arr: [1, [2]], obj: { a: 1, b: [2] }, map: new Map([[1, 'a']]), set: new Set([1, 2]), nullproto: Object.create(null) }[x];
}
`;
  const statuses = await judge('javascript', code, [
    "assert.strictEqual(f('zero'), 0);",
    "assert.deepStrictEqual(f('zero'), -0);",
    "assert.strictEqual(f('nan'), NaN);",
    "assert.deepStrictEqual(f('arr'), [1, [2]]);",
    "assert.strictEqual(f('arr'), [1, [2]]);",
    "assert.deepStrictEqual(f('obj'), { b: [2], a: 1 });",
    "assert.deepStrictEqual(f('map'), new Map([[1, 'a']]));",
    "assert.deepStrictEqual(f('set'), new Set([2, 1]));",
    "assert.deepStrictEqual(f('nullproto'), {});",
    "assert.throws(() => f('missing'), TypeError);",
  ]);
  assert.deepEqual(statuses, [
    'failed',
    'passed',
    'passed',
    'passed',
    'failed',
    'passed',
    'passed',
    'passed',
    'failed',
    'passed',
  ]);
});

test('typescript: the code and the expected values run with their types stripped', async () => {
  const code = `export function sum(xs: number[]): number {\n  return xs.reduce((a: number, b: number) => a + b, 0);\n}\n`;
  const statuses = await judge(
    'typescript',
    code,
    ['assert.strictEqual(sum([1, 2, 3] as number[]), 6);', 'assert.deepStrictEqual(sum([]), <number>1);'],
    'sum',
  );
  assert.deepEqual(statuses, ['passed', 'failed']);
});

test('a call whose result changes from run to run makes its test flaky, not passed or failed', async () => {
  // Each call draws a fresh random bit, so each test passes in a run with probability 1/2: over
  // 20 tests, two runs of the code give some test two verdicts unless 2^-20 luck strikes.
  const cases = [
    {
      language: 'python' as const,
      code: 'import random\ndef f(i):\n    return random.getrandbits(1)\n',
      line: (i: number) => `assert f(${i}) == 0`,
    },
    {
      language: 'javascript' as const,
      code: 'function f(i) {\n  return Math.random() < 0.5 ? 0 : 1;\n}\n',
      line: (i: number) => `assert.strictEqual(f(${i}), 0);`,
    },
  ];
  for (const { language, code, line } of cases) {
    const lines = Array.from({ length: 20 }, (_, i) => line(i));
    const { tests } = await parseAssertionLines(lines.join('\n'), language, 'f');
    const twice = await runAssertions({ language, code, tests });
    const flaky = twice.verdicts.filter((v) => v.status === 'flaky');
    assert.ok(flaky.length > 0, `${language}: no test was flaky`);
    assert.ok(twice.verdicts.every((v) => ['passed', 'failed', 'flaky'].includes(v.status)));
    assert.equal(twice.summary.flaky, flaky.length);
    assert.match(
      flaky[0].output,
      /^Flaky: (passed|failed) in one run of the code and (passed|failed) in another/,
    );
    // One run cannot tell: every test is judged on its single result.
    const once = await runAssertions({ language, code, tests, runs: 1 });
    assert.ok(once.verdicts.every((v) => v.status === 'passed' || v.status === 'failed'));
  }
});

test('a function named test_* is never collected as a test on the in-process path (issue 19)', async () => {
  const r = await runSuite({
    language: 'python',
    code: 'def test_sort_rows(rows):\n    return sorted(rows, key=sum)\n',
    tests: [
      {
        name: 'test_sorts_by_sum',
        source: 'def test_sorts_by_sum():\n    assert test_sort_rows([[3], [1, 1]]) == [[1, 1], [3]]\n',
      },
    ],
  });
  assert.deepEqual(
    r.verdicts.map((v) => [v.name, v.status]),
    [['test_sorts_by_sum', 'passed']],
  );
});
