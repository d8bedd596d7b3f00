import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSteps, stepHash } from '../../../src/core/steps/split';

test('one step per non-empty line, with offsets that point back into the solution', () => {
  const solution = 'Let n = 2k.\n\nThen n^2 = 4k^2.\r\nSo n^2 is even.';
  const steps = splitSteps(solution);
  assert.deepEqual(
    steps.map((s) => s.text),
    ['Let n = 2k.', 'Then n^2 = 4k^2.', 'So n^2 is even.'],
  );
  for (const s of steps) assert.equal(solution.slice(s.start, s.end), s.text);
  assert.deepEqual(
    steps.map((s) => s.index),
    [0, 1, 2],
  );
});

test('display math, LaTeX environments and code fences are one step each', () => {
  const solution = [
    'We compute:',
    '$$',
    'a^2 + b^2',
    '= c^2',
    '$$',
    '\\begin{align}',
    'x &= 1 \\\\',
    'y &= 2',
    '\\end{align}',
    '```python',
    'print(1)',
    '',
    'print(2)',
    '```',
    'Done.',
  ].join('\n');
  const texts = splitSteps(solution).map((s) => s.text);
  assert.equal(texts.length, 5);
  assert.equal(texts[1], '$$\na^2 + b^2\n= c^2\n$$');
  assert.match(texts[2], /^\\begin\{align\}[\s\S]*\\end\{align\}$/);
  assert.match(texts[3], /print\(1\)\n\nprint\(2\)/, 'a blank line inside a fence does not split it');
});

test('indented continuation lines stay with their list item', () => {
  const texts = splitSteps(
    '1. First claim,\n   continued here.\n2. Second claim.\n   - not a continuation',
  ).map((s) => s.text);
  assert.deepEqual(texts, [
    '1. First claim,\n   continued here.',
    '2. Second claim.',
    '- not a continuation',
  ]);
});

test('an unclosed block runs to the end instead of being lost', () => {
  const steps = splitSteps('Start.\n$$\nx = 1');
  assert.equal(steps.length, 2);
  assert.equal(steps[1].text, '$$\nx = 1');
});

test('the hash ignores whitespace differences but not content', () => {
  assert.equal(stepHash('a  =\tb '), stepHash('a = b'));
  assert.notEqual(stepHash('a = b'), stepHash('a = c'));
  assert.match(stepHash('x'), /^[0-9a-f]{16}$/);
  assert.deepEqual(splitSteps(''), []);
});

test('\\[ … \\] display math is one step; one-line $$…$$ and \\[…\\] stay one line each', () => {
  const texts = splitSteps('Hence\n\\[\n  x = 1\n\\]\n$$y = 2$$\n\\[z = 3\\]\nEnd.').map((s) => s.text);
  assert.deepEqual(texts, ['Hence', '\\[\n  x = 1\n\\]', '$$y = 2$$', '\\[z = 3\\]', 'End.']);
});

test('the same step text has the same hash wherever it stands, so Prove scores and labels agree', () => {
  const a = splitSteps('First.\nThe key step.');
  const b = splitSteps('Intro.\nMore.\n  The key step.  ');
  assert.equal(a[1].hash, b[2].hash);
  assert.equal(a[1].hash, stepHash('The key step.'));
});
