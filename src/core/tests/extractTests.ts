import type { AssertionTest } from '../sandbox/assertionTest';
import type { CodeLanguage } from './functions';

/** A test the test writer produced, with the stage it came from. */
export interface GeneratedTest {
  /** Unique within the accumulated suite (renamed on collision). */
  name: string;
  /** A runnable test function (for an assertion test: one wrapped around its line). */
  source: string;
  stage: number;
  /** Present for an assertion test, which the oracle judges out of reach of the code under test. */
  assertion?: AssertionTest;
}

/** What the model wrote, reduced to the code it meant: fenced blocks if any, else the whole text. */
export function codeBlocks(text: string): string[] {
  // Substring search, one pass: a fence with no newline after it ends the search, as it would end
  // a regular expression's, without the rescans a regex makes for every fence on a long line.
  const blocks: string[] = [];
  let from = 0;
  for (;;) {
    const fence = text.indexOf('```', from);
    if (fence < 0) break;
    const lineEnd = text.indexOf('\n', fence + 3);
    if (lineEnd < 0) break;
    const close = text.indexOf('```', lineEnd + 1);
    blocks.push(text.slice(lineEnd + 1, close < 0 ? text.length : close));
    if (close < 0) break;
    from = close + 3;
  }
  return blocks.length ? blocks : [text];
}

/**
 * Splits test-writer output into individual tests, one per top-level test function (Python:
 * `def test_*`; JavaScript/TypeScript: `test(...)`/`it(...)` calls). Each test runs on its own in the
 * sandbox so that one that does not even compile cannot sink the others. A block whose syntax is
 * broken still yields its tests, which the sandbox then reports as uncollectable.
 */
export async function extractTests(
  output: string,
  language: CodeLanguage,
  stage: number,
  taken: Set<string> = new Set(),
): Promise<GeneratedTest[]> {
  const tests: GeneratedTest[] = [];
  for (const block of codeBlocks(output)) {
    const found = language === 'python' ? pythonTests(block) : jsTests(block);
    for (const t of found) {
      const name = uniqueName(t.name, taken);
      const source = name === t.name ? t.source : rename(t.source, t.name, name, language);
      tests.push({ name, source, stage });
    }
  }
  return tests;
}

function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let i = 2; taken.has(candidate); i++) candidate = `${name}_${i}`;
  taken.add(candidate);
  return candidate;
}

function rename(source: string, from: string, to: string, language: CodeLanguage): string {
  if (language === 'python') return source.replace(new RegExp(`(def\\s+)${from}\\b`), `$1${to}`);
  return source.replace(
    /(\b(?:test|it)\s*\(\s*)(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)/,
    (_m, head: string) => `${head}${JSON.stringify(to)}`,
  );
}

/** Python: top-level `def test_*` blocks (with decorators), found by indentation, which Python defines. */
function pythonTests(block: string): { name: string; source: string }[] {
  const lines = block.replace(/\t/g, '    ').split('\n');
  const out: { name: string; source: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(?:async\s+)?def\s+(test\w*)\s*\(/.exec(lines[i]);
    if (!m) continue;
    let start = i;
    while (start > 0 && lines[start - 1].startsWith('@')) start--;
    let end = i + 1;
    while (end < lines.length && (lines[end].trim() === '' || /^\s/.test(lines[end]))) end++;
    out.push({ name: m[1], source: lines.slice(start, end).join('\n').trimEnd() + '\n' });
    i = end - 1;
  }
  return out;
}

/** JavaScript/TypeScript: top-level `test('name', ...)` / `it('name', ...)` statements, by bracket balance. */
function jsTests(block: string): { name: string; source: string }[] {
  const out: { name: string; source: string }[] = [];
  const re = /^(?:test|it)\s*\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`)/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(block))) {
    const start = m.index;
    const end = balancedEnd(block, block.indexOf('(', start));
    out.push({
      name: m[1] ?? m[2] ?? m[3],
      source: block.slice(start, end).trimEnd() + (block[end - 1] === ';' ? '\n' : ';\n'),
    });
    re.lastIndex = end;
  }
  return out;
}

/** Index just past the `)` matching the `(` at `open` (string- and comment-aware), or the end. */
function balancedEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(text, i, c);
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i);
      if (i < 0) return text.length;
      continue;
    }
    if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') {
      depth--;
      if (depth === 0) return text[i + 1] === ';' ? i + 2 : i + 1;
    }
  }
  return text.length;
}

function skipString(text: string, i: number, quote: string): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === quote) return j;
  }
  return text.length;
}
