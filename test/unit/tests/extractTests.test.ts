import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractTests } from '../../../src/core/tests/extractTests';

test('splits Python test-writer output into one test per def, keeping decorators', async () => {
  const output = [
    'Here are some tests:',
    '```python',
    'import pytest',
    '',
    'def test_empty():',
    '    assert merge([]) == []',
    '',
    '@pytest.mark.parametrize("x", [1, 2])',
    'def test_single(x):',
    '    assert merge([[x, x]]) == [[x, x]]',
    '',
    'def helper():',
    '    return 1',
    '```',
  ].join('\n');
  const tests = await extractTests(output, 'python', 2);
  assert.deepEqual(
    tests.map((t) => [t.name, t.stage]),
    [
      ['test_empty', 2],
      ['test_single', 2],
    ],
  );
  assert.match(tests[1].source, /^@pytest\.mark\.parametrize/);
  assert.doesNotMatch(tests[1].source, /def helper/);
});

test('renames a test whose name an earlier stage already used', async () => {
  const taken = new Set<string>();
  await extractTests('```python\ndef test_basic():\n    assert f(1) == 1\n```', 'python', 1, taken);
  const again = await extractTests(
    '```python\ndef test_basic():\n    assert f(2) == 2\n```',
    'python',
    2,
    taken,
  );
  assert.equal(again[0].name, 'test_basic_2');
  assert.match(again[0].source, /def test_basic_2\(\)/);
});

test('splits JavaScript test() and it() calls, even with nested braces and strings', async () => {
  const output = [
    '```js',
    "test('adds', () => {",
    '  assert.equal(add(1, 2), 3); // ) not the end',
    '});',
    'it(\'handles "quotes" and {braces}\', () => { assert.deepEqual(f({a: [1]}), {a: [1]}) })',
    '```',
  ].join('\n');
  const tests = await extractTests(output, 'javascript', 3);
  assert.deepEqual(
    tests.map((t) => t.name),
    ['adds', 'handles "quotes" and {braces}'],
  );
  assert.match(tests[0].source, /assert\.equal\(add\(1, 2\), 3\)/);
});

test('output with no tests yields none, and prose without a code block is still searched', async () => {
  assert.deepEqual(await extractTests('I cannot write tests for this.', 'python', 1), []);
  const bare = await extractTests('def test_x():\n    assert True\n', 'python', 1);
  assert.equal(bare.length, 1);
});

test('a test with broken syntax is still extracted (the sandbox reports it uncollectable)', async () => {
  const tests = await extractTests(
    '```python\ndef test_bad(:\n    assert\n\ndef test_good():\n    assert f(1) == 1\n```',
    'python',
    1,
  );
  assert.deepEqual(
    tests.map((t) => t.name),
    ['test_bad', 'test_good'],
  );
  assert.match(tests[0].source, /def test_bad\(:/);
});
