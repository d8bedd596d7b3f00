import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAssertionLines } from '../../../src/core/tests/assertions';

test('python: single assertions split into the call and the expected value', async () => {
  const { tests, rejected } = await parseAssertionLines(
    [
      'assert add(1, 2) == 3',
      'assert 7 == add(3, 4), "message ignored"',
      'assert len(add([1], [2])) == 2',
      'with pytest.raises(TypeError): add(1, "a")',
      'assert add(0.1, 0.2) == pytest.approx(0.3, rel=1e-6)',
      'assert math.isclose(add(0.1, 0.2), 0.3, abs_tol=1e-9)',
      'assert add(None, None) is None',
      'assert not add(0, 0)',
    ].join('\n'),
    'python',
    'add',
  );
  assert.deepEqual(rejected, []);
  assert.deepEqual(
    tests.map((t) => [t.check, t.call, t.expected]),
    [
      ['equal', 'add(1, 2)', '3'],
      ['equal', 'add(3, 4)', '7'],
      ['equal', 'len(add([1], [2]))', '2'],
      ['raises', 'add(1, "a")', ''],
      ['close', 'add(0.1, 0.2)', '0.3'],
      ['close', 'add(0.1, 0.2)', '0.3'],
      ['is', 'add(None, None)', 'None'],
      ['falsy', 'add(0, 0)', ''],
    ],
  );
  assert.deepEqual(tests[3].exceptions, ['TypeError']);
  assert.deepEqual(tests[4].tolerance, { style: 'approx', rel: '1e-6' });
  assert.deepEqual(tests[5].tolerance, { style: 'isclose', abs: '1e-9' });
  assert.deepEqual(
    tests.map((t) => t.name),
    tests.map((_, i) => `assert_${i + 1}`),
  );
});

test('python: lines that are not one assertion on the function come back rejected with a reason', async () => {
  const { tests, rejected } = await parseAssertionLines(
    [
      '```python',
      '# a comment is skipped',
      'def test_add():',
      'assert add(1, 2) == add(2, 1)',
      'assert sub(1, 2) == -1',
      'assert add(1, 2) - 3 == 0',
      'assert add(1, 2) > 2',
      'assert add(1,',
      'assert add(1, 2) == 3; assert add(2, 2) == 4',
      'assert add(1, 2) == add',
      '```',
    ].join('\n'),
    'python',
    'add',
  );
  assert.equal(tests.length, 0);
  const reasons = Object.fromEntries(rejected.map((r) => [r.line, r.reason]));
  assert.match(reasons['def test_add():'], /not valid Python|not an assert/);
  assert.match(reasons['assert add(1, 2) == add(2, 1)'], /both sides/);
  assert.match(reasons['assert sub(1, 2) == -1'], /does not call add/);
  assert.match(reasons['assert add(1, 2) - 3 == 0'], /no expected value travels/);
  assert.match(reasons['assert add(1, 2) > 2'], /only ==/);
  assert.match(reasons['assert add(1,'], /not valid Python/);
  assert.match(reasons['assert add(1, 2) == 3; assert add(2, 2) == 4'], /more than one statement/);
  assert.match(reasons['assert add(1, 2) == add'], /must not depend/);
  assert.equal(rejected.length, 8);
});

test('python: exact and near duplicates are admitted once', async () => {
  const { tests, rejected } = await parseAssertionLines(
    [
      'assert f(()) == ()',
      'assert f( () )==()',
      'assert f(()) == ()  # same again',
      "assert f('a', 1_000) == [1.0, 0x10,]",
      'assert f("a", 1000) == [1.00, 16]',
      'assert f("""a""", 1000) == ([1.0, 16])',
      'assert f(("a"), 1000) == [1.0, 16]',
      'assert () == f(())',
      'assert f(1) == 1',
      'assert f(1.0) == 1',
    ].join('\n'),
    'python',
    'f',
  );
  assert.deepEqual(
    tests.map((t) => t.line),
    ['assert f(()) == ()', "assert f('a', 1_000) == [1.0, 0x10,]", 'assert f(1) == 1', 'assert f(1.0) == 1'],
  );
  assert.equal(rejected.length, 6);
  assert.ok(rejected.every((r) => /duplicate of line \d+/.test(r.reason)));
});

test('javascript and typescript: assert/strict calls, throws, ok and duplicates', async () => {
  const { tests, rejected } = await parseAssertionLines(
    [
      'assert.deepStrictEqual(merge([[1, 3], [2, 4]]), [[1, 4]]);',
      'assert.deepEqual(merge([[1,3],[2,4]]), [[1,4]])',
      'assert.strictEqual(merge([]).length, 0);',
      'assert.throws(() => merge(null), TypeError);',
      'assert.throws(() => { merge(undefined); });',
      'assert.ok(merge([[1, 2]]));',
      'assert.strictEqual(await merge([]), 0)',
      'assert.notStrictEqual(merge([]), 1);',
      'assert.deepStrictEqual(merge([]), merge([]));',
      'expect(merge([])).toEqual([]);',
      'assert.deepStrictEqual(merge([\'a\']), {"a": 1});',
      'assert.deepStrictEqual(merge(["a"]), {\'a\': 1});',
    ].join('\n'),
    'javascript',
    'merge',
  );
  assert.deepEqual(
    tests.map((t) => [t.check, t.call, t.expected, t.exceptions]),
    [
      ['deepStrictEqual', 'merge([[1, 3], [2, 4]])', '[[1, 4]]', undefined],
      ['strictEqual', 'merge([]).length', '0', undefined],
      ['raises', 'merge(null)', '', ['TypeError']],
      ['raises', 'merge(undefined)', '', []],
      ['truthy', 'merge([[1, 2]])', '', undefined],
      ['strictEqual', 'await merge([])', '0', undefined],
      ['deepStrictEqual', "merge(['a'])", '{"a": 1}', undefined],
    ],
  );
  const reasons = rejected.map((r) => r.reason).join('\n');
  assert.match(reasons, /duplicate of line 1/);
  assert.match(reasons, /notStrictEqual is not one of/);
  assert.match(reasons, /both sides call merge/);
  assert.match(reasons, /not an assert call/);
  assert.match(reasons, /duplicate of line 11/);
  const ts = await parseAssertionLines('assert.deepStrictEqual(f([1] as number[]), [1]);', 'typescript', 'f');
  assert.equal(ts.tests[0].call, 'f([1] as number[])');
});

test('model output that is not code never throws', async () => {
  const r = await parseAssertionLines('Here are some tests:\n\n- add(1, 2) should be 3\n', 'python', 'add');
  assert.equal(r.tests.length, 0);
  assert.equal(r.rejected.length, 2);
});

test('arguments must be plain data, so a test cannot tell the implementation it runs against', async () => {
  const py = await parseAssertionLines(
    [
      'assert f([i * 2 for i in range(3)], key=lambda a: -a) == [4, 2, 0]',
      'assert f("ab" * 3, {1: (2,)}, -1.5, None) == 1',
      'assert f(open("target.py").read()) == 1',
      'assert f(CANONICAL) == 1',
      'assert f([x for x in x]) == 1',
      'assert f(().__class__) == 1',
      'assert f(lambda a=helper: a) == 1',
      'assert f(f"{__import__(\'os\').getpid()}") == 1',
      'with pytest.raises(ValueError): f(globals())',
      'assert f(vars()) is None',
    ].join('\n'),
    'python',
    'f',
  );
  assert.equal(py.tests.length, 2);
  assert.equal(py.rejected.length, 8);
  assert.ok(
    py.rejected.every((r) => /plain data/.test(r.reason)),
    JSON.stringify(py.rejected),
  );
  const js = await parseAssertionLines(
    [
      'assert.deepStrictEqual(f([3, 1].map((x) => x * 2), new Set([1])), [6, 2]);',
      'assert.strictEqual(f([].constructor), 1);',
      'assert.strictEqual(f(globalThis), 1);',
      'assert.strictEqual(f(this), 1);',
      "assert.strictEqual(f([]['const' + 'ructor']), 1);",
      "assert.strictEqual(f(require('fs')), 1);",
    ].join('\n'),
    'javascript',
    'f',
  );
  assert.equal(js.tests.length, 1);
  assert.equal(js.rejected.length, 5);
  assert.ok(
    js.rejected.every((r) => /plain data/.test(r.reason)),
    JSON.stringify(js.rejected),
  );
});

test('a truth-value check takes the bare call with data arguments', async () => {
  const r = await parseAssertionLines(
    'assert f(globals())\nassert not f(1)\nassert.ok(f(this))',
    'python',
    'f',
  );
  assert.deepEqual(
    r.tests.map((t) => t.check),
    ['falsy'],
  );
  assert.match(r.rejected[0].reason, /plain data/);
  const js = await parseAssertionLines('assert.ok(f(this));\nassert.ok(!f(0));', 'javascript', 'f');
  assert.deepEqual(
    js.tests.map((t) => t.check),
    ['falsy'],
  );
});
