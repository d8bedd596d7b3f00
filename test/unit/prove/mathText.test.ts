import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitMathText, type MathSegment } from '../../../src/shared/mathText';

const kinds = (segments: MathSegment[]) => segments.map((s) => s.kind);

test('closed math is typeset and the text around it stays text', () => {
  const s = splitMathText('So $p^2 = 2q^2$ and $$\\frac{p}{q}$$ hence \\boxed{\\sqrt{2}}.');
  assert.deepEqual(kinds(s), ['text', 'math', 'text', 'math', 'text', 'math', 'text']);
  assert.deepEqual(
    s.filter((x) => x.kind === 'math').map((x) => (x as { tex: string }).tex),
    ['p^2 = 2q^2', '\\frac{p}{q}', '\\boxed{\\sqrt{2}}'],
  );
});

test('math cut at the token limit is shown as its source, not as broken markup', () => {
  for (const cut of [
    'Then $$\\frac{',
    'Then \\[ x = \\frac{1',
    'Then $\\frac{1}{',
    'so \\boxed{\\frac{1}{2',
  ]) {
    const s = splitMathText(cut);
    const last = s.at(-1)!;
    assert.equal(last.kind, 'source', cut);
    assert.match((last as { reason: string }).reason, /unfinished/);
    // Nothing is lost: the segments put together are the text.
    assert.equal(s.map((x) => (x.kind === 'math' ? x.source : x.text)).join(''), cut);
  }
});

test('math with unbalanced braces is shown as written', () => {
  const s = splitMathText('We get $\\frac{1}{2$ here.');
  assert.deepEqual(kinds(s), ['text', 'source', 'text']);
});

test('backticks become code, never leak; a lone dollar sign is a dollar sign', () => {
  const s = splitMathText('Use `n % 2` to test parity; it costs $5 and $6.');
  assert.deepEqual(kinds(s), ['text', 'code', 'text']);
  assert.equal((s[1] as { text: string }).text, 'n % 2');
  assert.equal((s[2] as { text: string }).text, ' to test parity; it costs $5 and $6.');
  const fenced = splitMathText('Code:\n```python\nprint(1)\n```\nDone.');
  assert.deepEqual(kinds(fenced), ['text', 'code', 'text']);
  assert.deepEqual(fenced[1], { kind: 'code', text: 'print(1)\n', block: true });
});
