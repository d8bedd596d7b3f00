/**
 * Hostile cases, issue 40 class 7: whole test files (in-process, forgeable, never a reward) still
 * give each test its own result. The code under test registers a passing test of its own next to
 * the real one; the host matches each result to its test by node id (file::test name), and one
 * failing result of a test is never masked by a passing one, so the real test's failure stands.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSuite } from '../../../src/core/sandbox/index';

test('python: a passing test injected into the test module is not taken for the real one', async () => {
  // Collected before the real test (it enters the module while the code is imported), and
  // claiming the test module as its own so the collection filter keeps it.
  const code = `import sys
def _forged():
    pass
_frame = sys._getframe(1)
while _frame and not _frame.f_globals.get("__name__", "").startswith("test_"):
    _frame = _frame.f_back
if _frame:
    _forged.__module__ = _forged.__qualname__ = _frame.f_globals["__name__"]
    _frame.f_globals["test_aaa"] = _forged
    _frame.f_globals["test_add_forged"] = _forged
def add(a, b):
    return a - b
`;
  const r = await runSuite({
    language: 'python',
    code,
    tests: [
      { name: 'test_add', source: 'def test_add():\n    assert add(1, 2) == 3\n' },
      { name: 'test_add_zero', source: 'def test_add_zero():\n    assert add(0, 0) == 0\n' },
    ],
  });
  assert.deepEqual(
    r.verdicts.map((v) => [v.name, v.status]),
    [
      ['test_add', 'failed'],
      ['test_add_zero', 'passed'],
    ],
    r.verdicts.map((v) => v.output).join('\n'),
  );
});

const JS_FORGER = `function add(a, b) {
  return a - b;
}
// Registered before the real test, under the real test's name and under another test's name.
test('adds', () => {});
test('adds zero', () => {});
`;

for (const language of ['javascript', 'typescript'] as const) {
  test(`${language}: a passing test registered by the code under test is not taken for the real one`, async () => {
    const code =
      language === 'typescript'
        ? JS_FORGER.replace('add(a, b)', 'add(a: number, b: number): number')
        : JS_FORGER;
    const r = await runSuite({
      language,
      code,
      tests: [
        { name: 'adds', source: "test('adds', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n" },
        {
          name: 'subtracts',
          source: "test('subtracts', () => {\n  assert.strictEqual(add(2, 2), 0);\n});\n",
        },
      ],
    });
    assert.deepEqual(
      r.verdicts.map((v) => [v.name, v.status]),
      [
        ['adds', 'failed'],
        ['subtracts', 'passed'],
      ],
      r.verdicts.map((v) => v.output).join('\n'),
    );
  });
}
