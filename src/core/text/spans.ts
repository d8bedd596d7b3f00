/**
 * Delimited spans (`<think>…</think>`, `<!-- … -->`, `\begin{env}…\end{env}`) found with plain
 * substring search, in one pass. The equivalent regular expressions (`open[\s\S]*?close`) rescan
 * the rest of the text for every unclosed opening, which model output can make quadratic.
 */

/** A case-insensitive search for a literal tag from `from` on (a literal pattern cannot backtrack). */
function finder(tag: string, ignoreCase: boolean): (text: string, from: number) => number {
  if (!ignoreCase) return (text, from) => text.indexOf(tag, from);
  const re = new RegExp(tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  return (text, from) => {
    re.lastIndex = from;
    return re.exec(text)?.index ?? -1;
  };
}

export interface Span {
  /** Index of the opening tag. */
  start: number;
  /** Index just past the closing tag. */
  end: number;
  /** The text between the tags. */
  inner: string;
  innerStart: number;
}

/**
 * Every `open … close` span, leftmost first, none overlapping; an opening without a closing
 * after it ends the search (as a lazy regular expression would find nothing more).
 */
export function closedSpans(text: string, open: string, close: string, ignoreCase = false): Span[] {
  const findOpen = finder(open, ignoreCase);
  const findClose = finder(close, ignoreCase);
  const spans: Span[] = [];
  let from = 0;
  for (;;) {
    const start = findOpen(text, from);
    if (start < 0) break;
    const innerStart = start + open.length;
    const closeAt = findClose(text, innerStart);
    if (closeAt < 0) break;
    spans.push({ start, end: closeAt + close.length, inner: text.slice(innerStart, closeAt), innerStart });
    from = closeAt + close.length;
  }
  return spans;
}

/** `text` without its closed `open … close` spans. */
export function removeClosedSpans(text: string, open: string, close: string, ignoreCase = false): string {
  let out = '';
  let at = 0;
  for (const s of closedSpans(text, open, close, ignoreCase)) {
    out += text.slice(at, s.start);
    at = s.end;
  }
  return out + text.slice(at);
}

/** The index of a literal tag, case-insensitive, or -1. */
export function indexOfIgnoreCase(text: string, tag: string, from = 0): number {
  return finder(tag, true)(text, from);
}
