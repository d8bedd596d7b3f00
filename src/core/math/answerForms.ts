/**
 * Reading a final answer into its structure: the boxed answer of a solution, a canonical LaTeX
 * string without layout, and a tree of scalars, text, tuples/intervals, sets and answer lists,
 * unions, matrices and equations that answers.ts compares. Untrusted text: nothing here throws.
 */

export type AnswerForm =
  | { kind: 'scalar'; src: string; degrees: boolean }
  | { kind: 'text'; text: string }
  /** `ordered`: tuples and intervals (brackets matter); unordered: sets and "enter all solutions" lists. */
  | { kind: 'seq'; ordered: boolean; open: string; close: string; items: AnswerForm[] }
  | { kind: 'union'; parts: AnswerForm[] }
  | { kind: 'matrix'; rows: AnswerForm[][] }
  | { kind: 'equation'; left: AnswerForm; right: AnswerForm };

/** Every `\boxed{…}` / `\fbox{…}` content in `text`, in order, nested braces balanced. */
export function boxedContents(text: string): string[] {
  const found: string[] = [];
  const marker = /\\(?:boxed|fbox)\s*\{/g;
  let match: RegExpExecArray | null;
  while ((match = marker.exec(text)) !== null) {
    const start = match.index + match[0].length;
    const end = closingBrace(text, start);
    if (end < 0) break; // an unclosed box: its content cannot be known, nor can later ones close
    found.push(text.slice(start, end));
    marker.lastIndex = end + 1;
  }
  return found;
}

/** The final answer of a solution: its last boxed value, trimmed; null when it boxed nothing. */
export function finalBoxedAnswer(text: string): string | null {
  const all = boxedContents(text);
  return all.length ? all[all.length - 1].trim() : null;
}

/** Index of the `}` closing the group whose content starts at `start`, or −1. */
function closingBrace(text: string, start: number): number {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

const UNICODE: [RegExp, string][] = [
  [/[−–]/g, '-'],
  [/π/g, '\\pi '],
  [/∞/g, '\\infty '],
  [/√/g, '\\sqrt'],
  [/×/g, '\\times '],
  [/[·⋅]/g, '\\cdot '],
  [/°/g, '^\\circ'],
  [/∪/g, '\\cup '],
  [/±/g, '\\pm '],
];

/**
 * The answer as a canonical LaTeX string: delimiters, `\boxed`, `\left`/`\right`, spacing
 * commands, `\$` and `\%` gone; `\dfrac`/`\tfrac` → `\frac`; text-like commands → `\text`;
 * degree words → `^\circ`; a trailing unit or period gone; whitespace collapsed.
 */
export function normalizeAnswer(raw: string): string {
  let s = typeof raw === 'string' ? raw : '';
  for (const [from, to] of UNICODE) s = s.replace(from, to);
  s = s.trim();
  for (let changed = true; changed;) {
    const before = s;
    s = s
      .replace(/[\s.]+$/, '')
      .replace(/^\$+|\$+$/g, '')
      .trim();
    s = s
      .replace(/^\\\(|\\\)$/g, '')
      .replace(/^\\\[|\\\]$/g, '')
      .trim();
    const box = /^\\(?:boxed|fbox)\s*\{/.exec(s);
    if (box && closingBrace(s, box[0].length) === s.length - 1) s = s.slice(box[0].length, -1).trim();
    changed = s !== before;
  }
  s = s
    .replace(/\\(?:displaystyle|textstyle|left|right|[bB]igg?[lr]?)(?![a-zA-Z])\.?/g, '')
    .replace(/\\!/g, '')
    // A row break `\\` stays; a spacing command (`\,` `\;` `\ `) becomes a space.
    .replace(/\\\\|\\[,;: >]|\\q?quad(?![a-zA-Z])|~/g, (m) => (m === '\\\\' ? m : ' '))
    .replace(/\{,\}/g, ',')
    .replace(/\\[dt]frac(?![a-zA-Z])/g, '\\frac')
    .replace(/\\(?:mbox|textrm|textbf|textit|textnormal|textup|mathrm|mathbf|mathit)(?![a-zA-Z])/g, '\\text')
    .replace(/\\\$|\\%|%/g, '')
    .replace(/\\(?:degree|textdegree)(?![a-zA-Z])|\\text\s*\{\s*degrees?\s*\}|\s+degrees?$/g, '^\\circ')
    .replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|\\circ/g, '^\\circ')
    .replace(/\\text\s*\{\s*(?:or|and)\s*\}|\s+(?:or|and)\s+/g, ',')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.]+$/, '');
  return s;
}

/** Splits at top-level occurrences of `sep` (brackets of any shape counted, so `[2,5)` is one group). */
function splitTopLevel(s: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      if (s.startsWith(sep, i) && depth === 0) {
        parts.push(s.slice(last, i));
        last = i + sep.length;
        i += sep.length - 1;
        continue;
      }
      if (s[i + 1] === '{' || s[i + 1] === '}') depth += s[i + 1] === '{' ? 1 : -1;
      i++;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (depth === 0 && s.startsWith(sep, i)) {
      parts.push(s.slice(last, i));
      last = i + sep.length;
    }
  }
  parts.push(s.slice(last));
  return parts.map((p) => p.trim());
}

/** Whether the bracket opening `s` closes exactly at its end (`(1,2)` yes, `(1)(2)` no). */
function wrappedWhole(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth === 0) return i === s.length - 1;
  }
  return false;
}

const MATRIX = /^\\begin\{([pbvBV]?matrix|array)\}(?:\{[^{}]*\})?([\s\S]*)\\end\{\1\}$/;
const SINGLE_VARIABLE = /^[a-zA-Z](?:_\{?[a-zA-Z0-9]+\}?)?$/;
const THOUSANDS = /^-?\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?$/;

/** Reads a (raw or normalised) answer into its structure. */
export function parseAnswer(raw: string): AnswerForm {
  return parseForm(normalizeAnswer(raw));
}

export function parseForm(s: string): AnswerForm {
  s = s.trim();
  s = stripTrailingUnit(s);
  if (THOUSANDS.test(s)) return scalar(s.replace(/[, ]/g, ''));

  const matrix = MATRIX.exec(s);
  if (matrix) {
    const rows = splitTopLevel(matrix[2].trim(), '\\\\').filter((r) => r !== '');
    return { kind: 'matrix', rows: rows.map((r) => splitTopLevel(r, '&').map(parseForm)) };
  }
  const union = splitTopLevel(s, '\\cup');
  if (union.length > 1) return { kind: 'union', parts: union.map(parseForm) };

  if (s.startsWith('\\{') && s.endsWith('\\}')) {
    const inner = s.slice(2, -2);
    return { kind: 'seq', ordered: false, open: '{', close: '}', items: listItems(inner).map(parseForm) };
  }
  if (/^[([]/.test(s) && /[)\]]$/.test(s) && wrappedWhole(s)) {
    const items = splitTopLevel(s.slice(1, -1), ',');
    if (items.length >= 2)
      return { kind: 'seq', ordered: true, open: s[0], close: s[s.length - 1], items: items.map(parseForm) };
    if (s[0] === '(' && s.endsWith(')')) return parseForm(s.slice(1, -1));
  }
  const items = listItems(s);
  if (items.length > 1)
    return { kind: 'seq', ordered: false, open: '', close: '', items: items.map(parseForm) };

  const sides = splitTopLevel(s, '=');
  if (sides.length === 2) {
    // `x = 5`, `y = 2x + 3`: a named value is the value; other equations compare side by side.
    if (SINGLE_VARIABLE.test(sides[0]) && !sides[1].includes('=')) return parseForm(sides[1]);
    return { kind: 'equation', left: parseForm(sides[0]), right: parseForm(sides[1]) };
  }
  const member = /^[a-zA-Z]\s*\\in\s*(.+)$/.exec(s);
  if (member) return parseForm(member[1]);

  const text = /^\\text\s*\{([^{}]*)\}$/.exec(s);
  if (text) return { kind: 'text', text: textKey(text[1]) };
  if (/^[a-zA-Z]+(?: [a-zA-Z]+)*$/.test(s) && /[a-zA-Z]{2}/.test(s) && !/^[a-zA-Z]$/.test(s))
    return { kind: 'text', text: textKey(s) };
  return scalar(s);
}

/** Comma-separated answers, each `a \pm b` standing for its two values. */
function listItems(s: string): string[] {
  return splitTopLevel(s, ',')
    .filter((item) => item !== '')
    .flatMap(expandPlusMinus);
}

function expandPlusMinus(s: string): string[] {
  const parts = splitTopLevel(s, '\\pm');
  if (parts.length === 2 && parts[1] !== '') {
    const left = parts[0] === '' ? '' : `${parts[0]}`;
    return [`${left}+(${parts[1]})`, `${left}-(${parts[1]})`];
  }
  const mp = splitTopLevel(s, '\\mp');
  if (mp.length === 2 && mp[1] !== '') return [`${mp[0]}-(${mp[1]})`, `${mp[0]}+(${mp[1]})`];
  return [s];
}

/** `5.4 \text{ cents}`, `15\text{ cm}^2`, `12 square units`: the unit after a value is dropped. */
function stripTrailingUnit(s: string): string {
  const text = /^(.*\S)\s*\\text\s*\{[^{}]*\}(?:\s*\^\s*\{?\d\}?)?$/.exec(s);
  if (text && !/^\\text\s*\{/.test(s)) return text[1].trim();
  const words = /^(.*[^\s\\a-zA-Z{])(?:\s+[a-zA-Z]{2,}(?:\^\{?\d\}?)?)+$/.exec(s);
  if (words && !/\\[a-zA-Z]*$/.test(words[1])) return words[1].trim();
  return s;
}

function scalar(src: string): AnswerForm {
  const degrees = /\^\\circ/.test(src);
  let s = src.replace(/\^\\circ/g, '').trim();
  // A mixed number (2\frac{1}{2}, 137 \frac{1}{2}) is a whole plus a fraction, not a product.
  const mixed = /^(-?)(\d+)\s*\\frac\s*\{(\d+)\}\s*\{(\d+)\}$/.exec(s);
  if (mixed) s = `${mixed[1]}(${mixed[2]}+\\frac{${mixed[3]}}{${mixed[4]}})`;
  return { kind: 'scalar', src: s, degrees };
}

export function textKey(s: string): string {
  return s
    .replace(/\\text\s*\{([^{}]*)\}/g, '$1')
    .toLowerCase()
    .replace(/\s+/g, '')
    .replace(/^\(([a-z])\)$/, '$1');
}

/** The form as comparable text, for answers that are words or letters (`\text{(B)}` = `B`). */
export function formKey(f: AnswerForm): string {
  switch (f.kind) {
    case 'text':
      return f.text;
    case 'scalar':
      return textKey(f.src) + (f.degrees ? '°' : '');
    case 'seq':
      return `${f.open}${f.items.map(formKey).join(',')}${f.close}`;
    case 'union':
      return f.parts.map(formKey).join('∪');
    case 'matrix':
      return f.rows.map((r) => r.map(formKey).join('&')).join('\\\\');
    case 'equation':
      return `${formKey(f.left)}=${formKey(f.right)}`;
  }
}
