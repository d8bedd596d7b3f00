import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProofDocument, problemAt, problemIdOf, stepAt } from '../../../src/core/steps/document';

const markdown = [
  '# Problem',
  'Show that the sum of two even numbers is even.',
  '',
  '## Solution',
  'Let a = 2m and b = 2n.',
  '$$',
  'a + b = 2(m + n)',
  '$$',
  'So a + b is even.',
  '',
  '## Self Evaluation',
  'Score: 1',
].join('\n');

test('Markdown: problem text, solution range ending at Self Evaluation, and document-relative step offsets', () => {
  const doc = parseProofDocument(markdown);
  assert.equal(doc.problem, 'Show that the sum of two even numbers is even.');
  assert.ok(doc.solution);
  assert.doesNotMatch(doc.solution.text, /Self Evaluation|Score/);
  assert.deepEqual(
    doc.steps.map((s) => s.text),
    ['Let a = 2m and b = 2n.', '$$\na + b = 2(m + n)\n$$', 'So a + b is even.'],
  );
  for (const s of doc.steps) assert.equal(markdown.slice(s.start, s.end), s.text);
  assert.equal(stepAt(doc, markdown.indexOf('2(m + n)'))?.index, 1);
});

test('the problem id is a stable hash of the problem text, or the explicit marker', () => {
  const a = parseProofDocument(markdown);
  const reflowed = parseProofDocument(
    markdown
      .replace('Show that the sum', 'Show  that the\nsum')
      .replace('So a + b is even.', 'Hence a + b is even.'),
  );
  assert.equal(a.problemId, reflowed.problemId, 'whitespace and solution edits keep the id');
  assert.equal(a.problemId, problemIdOf(a.problem));
  assert.notEqual(a.problemId, parseProofDocument(markdown.replace('two even', 'two odd')).problemId);
  assert.equal(parseProofDocument(`<!-- stepwise:id=amc-2023-7 -->\n${markdown}`).problemId, 'amc-2023-7');
});

test('LaTeX problem and solution environments', () => {
  const tex =
    '\\begin{problem}\nFind $x$ with $x + 1 = 3$.\n\\end{problem}\n\\begin{solution}\nSubtract 1 from both sides.\nSo $x = 2$.\n\\end{solution}\n';
  const doc = parseProofDocument(tex);
  assert.equal(doc.problem, 'Find $x$ with $x + 1 = 3$.');
  assert.deepEqual(
    doc.steps.map((s) => s.text),
    ['Subtract 1 from both sides.', 'So $x = 2$.'],
  );
  for (const s of doc.steps) assert.equal(tex.slice(s.start, s.end), s.text);
});

test('a document without a solution has no steps and says so, without throwing', () => {
  const doc = parseProofDocument('Just some notes.\n');
  assert.equal(doc.solution, null);
  assert.deepEqual(doc.steps, []);
  assert.match(doc.problemId, /^p-[0-9a-f]{16}$/);
});

test('a document with several problems: Prove takes the one nearest above the cursor', () => {
  const text = [
    '## Problem',
    'Show that 1 + 1 = 2.',
    '## Solution',
    'By definition.',
    '',
    '## Problem <!-- not a heading of the section name -->',
    '## Problem',
    '<!-- stepwise:id=second -->',
    'Show that 2 + 2 = 4.',
    '### Hint',
    'Count.',
    '## Solution',
    'Add.',
    '\\begin{problem}Show that 3 is odd.\\end{problem}',
  ].join('\n');
  assert.equal(problemAt(text, 0), 'Show that 1 + 1 = 2.');
  assert.equal(problemAt(text, text.indexOf('By definition')), 'Show that 1 + 1 = 2.');
  // The second section keeps its subheading and drops the id marker.
  assert.equal(problemAt(text, text.indexOf('Add.')), 'Show that 2 + 2 = 4.\n### Hint\nCount.');
  assert.equal(problemAt(text, text.length), 'Show that 3 is odd.');
  assert.equal(problemAt('Just some text.', 3), null);
  assert.equal(problemAt('## Problem\n\n## Solution\nx', 20), null);
});
