import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AssertionAutomaton, normaliseLine } from '../../../src/core/model/assertionLines';

const python = () => new AssertionAutomaton({ language: 'python', functionName: 'add', maxLines: 3 });
const js = () => new AssertionAutomaton({ language: 'typescript', functionName: 'add', maxLines: 3 });

test('python: admits one assertion on the function per line and ends at a blank line', () => {
  const a = python();
  assert.equal(a.feed('assert add(1, 2) == 3\n'), 'ok');
  assert.equal(a.feed("assert not add(0, 0)\nassert add('a', \"b\") == 'ab'\n"), 'ok');
  assert.deepEqual(a.lines, [
    'assert add(1, 2) == 3',
    'assert not add(0, 0)',
    "assert add('a', \"b\") == 'ab'",
  ]);
  assert.equal(a.ended, true, 'the third line reaches maxLines');
  assert.equal(a.feed('\n'), 'reject', 'nothing after the end');
});

test('python: a line may not end with open brackets or strings, and may not hold comments or a second statement', () => {
  for (const bad of [
    'assert add(1, 2\n',
    "assert add('a) == 1\n",
    'assert add(1, 2] == 3\n',
    'assert add(1, 2) == 3  # comment\n',
    'assert add(1, 2) == 3; print(1)\n',
    'assert sub(1, 2) == 3\n',
    'print(add(1, 2))\n',
    '  assert add(1, 2) == 3\n',
    'assert add(1, \\\n',
  ]) {
    const a = python();
    assert.notEqual(a.feed(bad), 'ok', bad);
  }
  const a = python();
  assert.equal(
    a.feed('assert add([1, (2, 3)], {"k": ")"}) == [1]\n'),
    'ok',
    'brackets inside strings do not count',
  );
});

test('a repeated line is reported at its newline, also when it differs only in spacing', () => {
  const a = python();
  assert.equal(a.feed('assert add(1, 2) == 3\n'), 'ok');
  assert.equal(a.clone().feed('assert add(1, 2) == 3\n'), 'duplicate');
  assert.equal(a.clone().feed('assert add(1,  2) == 3 \n'), 'duplicate');
  assert.equal(a.feed('assert add(1, 2) == 4\n'), 'ok');
});

test('a blank line ends the segment only after at least one line; EOS only where a line may end', () => {
  const a = python();
  assert.equal(a.clone().feed('\n'), 'reject');
  assert.equal(a.canEnd(), false);
  a.feed('assert add(1, 2)');
  assert.equal(a.canEnd(), true, 'a complete line may end at EOS');
  a.feed(' == ');
  assert.equal(a.canEnd(), true);
  a.feed('[');
  assert.equal(a.canEnd(), false, 'not inside a bracket');
  a.feed('3]');
  a.end();
  assert.deepEqual(a.lines, ['assert add(1, 2) == [3]']);
});

test('dropLine cuts the current line out and starts it over', () => {
  const a = python();
  a.feed('assert add(1, 2) == 3\nassert add(9');
  a.dropLine();
  assert.equal(a.text, 'assert add(1, 2) == 3\n');
  assert.equal(a.feed('assert add(2, 2) == 4\n'), 'ok');
  assert.equal(a.lines.length, 2);
});

test('javascript: strictEqual/deepStrictEqual on the function, with an expected value, one per line', () => {
  const a = js();
  assert.equal(
    a.feed('assert.strictEqual(add(1, 2), 3);\nassert.deepStrictEqual(add([1], [2]), [1, 2])\n'),
    'ok',
  );
  assert.equal(a.lines.length, 2);
  for (const bad of [
    'assert.strictEqual(add(1, 2));\n',
    'assert.strictEqual(add(1, 2), 3) && foo\n',
    'assert.equal(add(1, 2), 3);\n',
    'assert.strictEqual(add(1, 2), 3); // ok\n',
    'assert.strictEqual(add(1, 2), 3);;\n',
  ]) {
    assert.notEqual(js().feed(bad), 'ok', bad);
  }
  assert.equal(js().feed('assert.strictEqual(add(`a${1}`, "b"), "ab");\n'), 'ok');
});

test('normaliseLine ignores spacing and a trailing semicolon', () => {
  assert.equal(normaliseLine('assert.strictEqual(add(1,  2), 3) ; '), 'assert.strictEqual(add(1, 2), 3)');
});
