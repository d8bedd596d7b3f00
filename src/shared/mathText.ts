/**
 * Model output split into what a panel can show safely: plain text, math to typeset, code, and
 * math that cannot be typeset (cut at a token limit, or with unbalanced braces), which is shown as
 * its source in code style rather than as broken markup. Pure (no DOM), so it is tested in Node.
 */
export type MathSegment =
  | { kind: 'text'; text: string }
  | { kind: 'math'; tex: string; display: boolean; source: string }
  | { kind: 'code'; text: string; block: boolean }
  /** Math shown as written, with why it was not typeset. */
  | { kind: 'source'; text: string; reason: string };

const UNFINISHED = 'unfinished math: the text ends before it closes (cut at the token limit?)';
const UNBALANCED = 'math with unbalanced braces: shown as written';

/** Whether `{`/`}` (not escaped) balance and never go below zero. */
export function bracesBalance(tex: string): boolean {
  let depth = 0;
  for (let i = 0; i < tex.length; i++) {
    if (tex[i] === '\\') {
      i++;
      continue;
    }
    if (tex[i] === '{') depth++;
    else if (tex[i] === '}' && --depth < 0) return false;
  }
  return depth === 0;
}

/** Where the `{` at `open` closes; -1 when the text ends first. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

const OPENER = /```|`|\$\$|\\\[|\\\(|\$|\\boxed\{/g;
// A lone `$` opens math only when TeX follows it on its line; otherwise it is a dollar sign.
const LOOKS_LIKE_TEX = /\\[a-zA-Z]|[\^_{}]/;

/**
 * The `$` that closes inline math opened just before `from`, by Pandoc's rule: the math starts with
 * a non-space, ends with a non-space, and the closing `$` is not followed by a digit (so "$5 and
 * $6" holds no math); on the same line. -1 when there is none.
 */
function inlineDollarCloser(text: string, from: number): number {
  if (from >= text.length || /\s/.test(text[from])) return -1;
  for (let i = from + 1; i < text.length && text[i] !== '\n'; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === '$' && !/\s/.test(text[i - 1]) && !/\d/.test(text[i + 1] ?? '')) return i;
  }
  return -1;
}

export function splitMathText(text: string): MathSegment[] {
  const out: MathSegment[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ kind: 'text', text: plain });
    plain = '';
  };
  const math = (tex: string, display: boolean, source: string) => {
    flush();
    out.push(
      bracesBalance(tex)
        ? { kind: 'math', tex, display, source }
        : { kind: 'source', text: source, reason: UNBALANCED },
    );
  };
  let i = 0;
  while (i < text.length) {
    OPENER.lastIndex = i;
    const m = OPENER.exec(text);
    if (!m) break;
    plain += text.slice(i, m.index);
    const at = m.index;
    const opener = m[0];
    const after = at + opener.length;
    if (opener === '\\boxed{') {
      const close = closingBrace(text, after - 1);
      if (close < 0) {
        flush();
        out.push({ kind: 'source', text: text.slice(at), reason: UNFINISHED });
        return out;
      }
      math(text.slice(at, close + 1), false, text.slice(at, close + 1));
      i = close + 1;
      continue;
    }
    if (opener === '```' || opener === '`') {
      const close = text.indexOf(opener, after);
      const inline = opener === '`';
      if (close < 0 || (inline && text.slice(after, close).includes('\n'))) {
        // An unmatched fence is code to the end; an unmatched backtick is just a character.
        if (inline) {
          plain += opener;
          i = after;
          continue;
        }
        flush();
        out.push({ kind: 'code', text: text.slice(after).replace(/^[\w-]*\n/, ''), block: true });
        return out;
      }
      flush();
      const body = text.slice(after, close);
      out.push({ kind: 'code', text: inline ? body : body.replace(/^[\w-]*\n/, ''), block: !inline });
      i = close + opener.length;
      continue;
    }
    const closer = opener === '$$' ? '$$' : opener === '\\[' ? '\\]' : opener === '\\(' ? '\\)' : '$';
    const display = opener === '$$' || opener === '\\[';
    const close = opener === '$' ? inlineDollarCloser(text, after) : text.indexOf(closer, after);
    if (close < 0) {
      const rest = opener === '$' ? text.slice(after).split('\n')[0] : text.slice(after);
      if (opener === '$' && !LOOKS_LIKE_TEX.test(rest)) {
        plain += opener;
        i = after;
        continue;
      }
      flush();
      const end = opener === '$' ? after + rest.length : text.length;
      out.push({ kind: 'source', text: text.slice(at, end), reason: UNFINISHED });
      i = end;
      continue;
    }
    math(text.slice(after, close), display, text.slice(at, close + closer.length));
    i = close + closer.length;
  }
  plain += text.slice(i);
  flush();
  return out;
}
