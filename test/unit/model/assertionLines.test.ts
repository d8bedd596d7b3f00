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

test('python: a line may not end with open brackets or strings, and may not hold a second statement', () => {
  for (const bad of [
    'assert add(1, 2\n',
    "assert add('a) == 1\n",
    'assert add(1, 2] == 3\n',
    'assert add(1, 2  # comment\n',
    'assert add(1, 2) ==  # comment\n',
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

test('python: operands need an operator or keyword between them; no lone "=" outside brackets; no dangling operator', () => {
  for (const bad of [
    'assert add(2, 4) = 16\n',
    'assert add(3, 5) == 8 This is not true because\n',
    'assert add(1, 2) 3\n',
    'assert add(1 2) == 3\n',
    'assert add(1, 2) ==\n',
    'assert add(1, 2) is not\n',
    'assert add(1, 2) == 0. This\n',
    'assert add(1, +) == 3\n',
  ]) {
    assert.notEqual(python().feed(bad), 'ok', bad);
  }
  for (const good of [
    'assert add(a=1, b=2) == 3\n',
    'assert add(1, 2) is not None\n',
    'assert add(1, 2) in [3, 4] and add(0, 0) == 0\n',
    'assert add([x for x in range(3) if x], []) == [1, 2]\n',
    'assert add(lambda x: x + 1, 2.5e-3) != -1.0\n',
    "assert not add(f'{1}', r'\\d') >= 1, 'message'\n",
    'assert add(xs[1:], (1,)) <= {"a": 1}\n',
  ]) {
    assert.equal(python().feed(good), 'ok', good);
  }
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
  assert.equal(a.canEnd(), false, 'not after an operator');
  a.feed('[');
  assert.equal(a.canEnd(), false, 'not inside a bracket');
  a.feed('3]');
  assert.equal(a.canEnd(), true);
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
    'assert.strictEqual(add(1, 2), 3); / 2\n',
    'assert.strictEqual(add(1, 2), // 3);\n',
    'assert.strictEqual(add(1, 2), 3);;\n',
    'assert.strictEqual(add(1, 2), x = 3);\n',
    'assert.strictEqual(add(1, 2), 3 4);\n',
  ]) {
    assert.notEqual(js().feed(bad), 'ok', bad);
  }
  assert.equal(js().feed('assert.strictEqual(add(`a${1}`, "b"), "ab");\n'), 'ok');
  assert.equal(
    js().feed('assert.deepStrictEqual(add([1].map((x) => x * 2), new Set()), typeof 1 === "number");\n'),
    'ok',
  );
});

test('normaliseLine ignores spacing and a trailing semicolon', () => {
  assert.equal(normaliseLine('assert.strictEqual(add(1,  2), 3) ; '), 'assert.strictEqual(add(1, 2), 3)');
});

test('the rest of a line opening is forced once the model has started it, up to its last word', () => {
  const a = python();
  assert.equal(a.forcedContinuation(), '', 'nothing is forced before a line starts');
  a.feed('ass');
  assert.equal(
    a.forcedContinuation(),
    'ert',
    '"assert add(" and "assert not add(" part after "assert "; the space is the model\'s',
  );
  a.feed('ert a');
  // The bracket is left to the model's own token ("(", "([" or "('"): forced alone, it split
  // tokens the model would have merged, and the arguments that followed lost their list brackets.
  assert.equal(a.forcedContinuation(), 'dd');
  a.feed('dd');
  assert.equal(a.forcedContinuation(), '', 'only the bracket is left, and the model writes it');
  assert.equal(a.clone().feed('(['), 'ok', 'a merged bracket token is allowed');
  assert.equal(a.clone().feed('['), 'reject', 'the call must still be on the function under test');
  const j = js();
  j.feed('assert.dee');
  assert.equal(j.forcedContinuation(), 'pStrictEqual(add');
});

test('a complete line may end with a comment, which is left out of the admitted line and of duplicate checks', () => {
  const a = python();
  assert.equal(a.feed('assert add(0, 0) == 0  # both zero\n'), 'ok');
  assert.equal(a.feed("assert add(1, 2) == 3 #'(\n"), 'ok', 'a comment may hold anything');
  assert.deepEqual(a.lines, ['assert add(0, 0) == 0', 'assert add(1, 2) == 3']);
  assert.equal(a.feed('assert add(0, 0)  ==  0 # again\n'), 'duplicate');
  const b = js();
  assert.equal(b.feed('assert.strictEqual(add(1, 2), 3); // small numbers\n'), 'ok');
  assert.deepEqual(b.lines, ['assert.strictEqual(add(1, 2), 3);']);
  const c = python();
  assert.equal(c.feed('assert add(1, 2) == 3 # note'), 'ok');
  assert.equal(c.canEnd(), true, 'the segment may end inside a comment');
});
