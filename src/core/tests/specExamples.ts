/**
 * The examples a specification gives, as tests. A docstring's examples are the one part of the
 * evidence the user wrote: a generated implementation that fails one has misread the task, so it
 * is set aside before it may vouch for any generated test (evidence.ts). Two forms are read:
 * doctest (`>>> f(1, 2)` with the expected value on the following lines) and one-line examples
 * (`f(1, 2) == 3`, `f(1, 2) ➞ 3`, `f(1, 2) -> 3`, `f(1, 2) => 3`, `f(1, 2) returns 3`). An example
 * read wrongly fails on every implementation and the user's function alike, and is then ignored.
 */
import type { GeneratedTest } from './extractTests';
import type { CodeLanguage } from './functions';
import { testsFromStage } from './stageTests';

/** The stage number that marks an example test: it comes from the specification, not a stage. */
export const EXAMPLE_STAGE = 0;

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

/**
 * The specification's examples as runnable assertion tests (Python, where docstring examples are
 * written; none for other languages), named apart from the generated tests in `taken`. Lines that
 * do not parse as one assertion on the function, or do not match its signature, are dropped.
 */
export async function exampleTests(
  target: { name: string; language: CodeLanguage; signature?: string; kind?: string; docstring?: string },
  taken: Set<string>,
): Promise<GeneratedTest[]> {
  if (target.language !== 'python') return [];
  const lines = exampleAssertions(target.docstring, target.name);
  if (!lines.length) return [];
  const { tests } = await testsFromStage(lines.join('\n'), target, EXAMPLE_STAGE, new Set(), taken);
  return tests.filter((t) => t.assertion);
}
