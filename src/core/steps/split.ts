import { createHash } from 'node:crypto';

/**
 * Splitting a solution into steps, shared by proving (step scores) and labelling (step labels) so a
 * step has one identity everywhere. As in "Let's Verify Step by Step", one step per line; a display
 * math block ($$…$$, \[…\], \begin{…}…\end{…}) or a fenced code block is one step however many
 * lines it spans, and an indented continuation line belongs to the list item above it.
 */
export interface Step {
  index: number;
  /** The step's text as written (trailing whitespace trimmed). */
  text: string;
  /** Character offsets of the step in the solution: [start, end). */
  start: number;
  end: number;
  /** Identity of the step's content: sha256 of the whitespace-normalised text, 16 hex digits. */
  hash: string;
}

export function stepHash(text: string): string {
  return createHash('sha256').update(text.replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 16);
}

interface Line {
  text: string;
  start: number;
  end: number;
}

function lines(solution: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (const raw of solution.split('\n')) {
    const end = start + raw.length;
    out.push({ text: raw.replace(/\r$/, ''), start, end: raw.endsWith('\r') ? end - 1 : end });
    start = end + 1;
  }
  return out;
}

/** If `line` opens a multi-line block, a test for the line that closes it. */
function blockCloser(line: string): ((l: string) => boolean) | null {
  const t = line.trim();
  const fence = /^(`{3,}|~{3,})/.exec(t);
  if (fence) return (l) => l.trim().startsWith(fence[1]);
  if (t.startsWith('$$') && !(t.length > 2 && t.endsWith('$$') && t !== '$$'))
    return (l) => l.trim().endsWith('$$');
  if (t.startsWith('\\[') && !t.endsWith('\\]')) return (l) => l.trim().endsWith('\\]');
  const env = /^\\begin\{([^}]+)\}/.exec(t);
  if (env && !t.includes(`\\end{${env[1]}}`)) return (l) => l.includes(`\\end{${env[1]}}`);
  return null;
}

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;

export function splitSteps(solution: string): Step[] {
  const all = lines(solution);
  const groups: { start: number; end: number }[] = [];
  for (let i = 0; i < all.length; i++) {
    const line = all[i];
    if (line.text.trim() === '') continue;
    let last = i;
    const closes = blockCloser(line.text);
    if (closes) {
      let j = i + 1;
      while (j < all.length && !closes(all[j].text)) j++;
      last = Math.min(j, all.length - 1);
    } else if (LIST_ITEM.test(line.text)) {
      // Indented lines under a list item continue it, until a blank line or a new item.
      while (
        last + 1 < all.length &&
        /^\s{2,}\S/.test(all[last + 1].text) &&
        !LIST_ITEM.test(all[last + 1].text)
      )
        last++;
    }
    groups.push({
      start: line.start + (line.text.length - line.text.trimStart().length),
      end: all[last].end,
    });
    i = last;
  }
  return groups.map((g, index) => {
    const text = solution.slice(g.start, g.end).trimEnd();
    return { index, text, start: g.start, end: g.start + text.length, hash: stepHash(text) };
  });
}
