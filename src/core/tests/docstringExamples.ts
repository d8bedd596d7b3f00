/**
 * The examples a docstring gives, read as `assert CALL == EXPECTED` lines. Two forms are read:
 * doctest (`>>> f(1, 2)` with the expected value on the following lines) and one-line examples
 * (`f(1, 2) == 3`, `f(1, 2) ➞ 3`, `f(1, 2) -> 3`, `f(1, 2) => 3`, `f(1, 2) returns 3`). Kept apart
 * from specExamples.ts, which runs them, so that the signature check can read them too.
 */

const SEPARATOR = /^(?:==>|#?=>|==|➞|→|->|returns?\b|should\s+(?:be|return)\b|is\b|=)\s*/i;

/** End of the call that opens at `open` (the index of its '('), or -1 when unbalanced. */
function callEnd(text: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return c === ')' ? i + 1 : -1;
    }
  }
  return -1;
}

/** The call `name(...)` at the start of `text`, and what follows it; null when there is none. */
function leadingCall(text: string, name: string): { call: string; rest: string } | null {
  if (!text.startsWith(`${name}(`)) return null;
  const end = callEnd(text, name.length);
  return end < 0 ? null : { call: text.slice(0, end), rest: text.slice(end).trim() };
}

/** `assert CALL == EXPECTED` lines from the docstring's examples of `name`, at most `max`. */
export function exampleAssertions(docstring: string | undefined, name: string, max = 8): string[] {
  if (!docstring) return [];
  const lines = docstring.split(/\r?\n/).map((l) => l.trim());
  const out: string[] = [];
  for (let i = 0; i < lines.length && out.length < max; i++) {
    const doctest = /^>>>\s*(.*)$/.exec(lines[i]);
    if (doctest) {
      const found = leadingCall(doctest[1], name);
      if (!found || found.rest) continue;
      // The expected value: the lines up to a blank line or the next prompt, as doctest reads it.
      const expected: string[] = [];
      for (let j = i + 1; j < lines.length && lines[j] && !lines[j].startsWith('>>>'); j++)
        expected.push(lines[j]);
      if (expected.length) out.push(`assert ${found.call} == ${expected.join(' ')}`);
      continue;
    }
    const start = lines[i].replace(/^(?:assert\s+|(?:for\s+)?example:?\s*|e\.g\.\s*)/i, '');
    const found = leadingCall(start, name);
    if (!found) continue;
    const sep = SEPARATOR.exec(found.rest);
    // A full stop ends a sentence, not the value ("f(2) returns 4."); a float keeps its digits.
    const expected = sep ? found.rest.slice(sep[0].length).replace(/\.$/, '').trim() : '';
    if (expected) out.push(`assert ${found.call} == ${expected}`);
  }
  return out;
}
