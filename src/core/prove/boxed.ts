/** Reading `\boxed{...}` scores out of untrusted model text. Nothing here throws. */

export interface BoxedValue {
  /** The text between the braces, nested braces included. */
  content: string;
  /** Offset of the backslash of `\boxed` in the searched text. */
  start: number;
  /** Offset just after the closing brace. */
  end: number;
}

/**
 * Every `\boxed{...}` in `text`, with nested braces balanced (`\boxed{\frac{1}{2}}`). A box whose
 * braces never close is skipped: its content cannot be known. Linear in the length of the text.
 */
export function findBoxed(text: string): BoxedValue[] {
  const found: BoxedValue[] = [];
  const marker = /\\boxed\s*\{/g;
  let match: RegExpExecArray | null;
  while ((match = marker.exec(text)) !== null) {
    let depth = 1;
    let i = match.index + match[0].length;
    for (; i < text.length && depth > 0; i++) {
      const c = text[i];
      if (c === '\\')
        i++; // an escaped brace (\{ or \}) does not open or close a group
      else if (c === '{') depth++;
      else if (c === '}') depth--;
    }
    if (depth !== 0) break; // unclosed: nothing later can close properly either
    found.push({ content: text.slice(match.index + match[0].length, i - 1), start: match.index, end: i });
    marker.lastIndex = i;
  }
  return found;
}

/**
 * The number a box holds: plain decimals (`1`, `0.5`, `.5`, `1.0`), `\frac{a}{b}`, `\dfrac`, `a/b`,
 * optionally wrapped in `$`, `\text{}` or spaces. Anything else gives null.
 */
export function boxedNumber(content: string): number | null {
  let s = trimChar(content.trim(), '$').trim();
  const text = /^\\(?:text|mathrm|textbf)\s*\{([^{}]*)\}$/.exec(s);
  if (text) s = text[1].trim();
  s = s.replace(/\\,|\\ |~/g, '').replace(/\s+/g, '');
  if (/^[+]?(\d+(\.\d*)?|\.\d+)$/.test(s)) return Number(s);
  const frac = /^\\d?frac\{(\d+)\}\{(\d+)\}$/.exec(s) ?? /^(\d+)\/(\d+)$/.exec(s);
  if (frac && Number(frac[2]) !== 0) return Number(frac[1]) / Number(frac[2]);
  return null;
}

/** `text` without `char` repeated at either end (a `^x+|x+$` pattern backtracks on long inner runs). */
function trimChar(text: string, char: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === char) start++;
  while (end > start && text[end - 1] === char) end--;
  return text.slice(start, end);
}
