import { createHash } from 'node:crypto';
import { splitSteps, type Step } from './split';
import { closedSpans, removeClosedSpans } from '../text/spans';

/**
 * The blocks of a proof document: its problem and its solution (Markdown `## Problem` /
 * `## Solution` sections, or LaTeX `problem` / `solution` environments), with offsets into the
 * document so the editor can map the cursor to a step.
 */
export interface ProofDocument {
  problemId: string;
  problem: string;
  /** The solution's text and where it starts in the document; null when there is none. */
  solution: { text: string; start: number; end: number } | null;
  /** Steps with offsets relative to the document (not the solution). */
  steps: Step[];
}

const sha = (text: string) =>
  createHash('sha256').update(text.replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 16);

const SECTION_NAMES = 'Problem|Solution|Self[- ]?Evaluation';

/** Every `## <name>` section (Markdown) or `<name>` environment (LaTeX) of a document, in order. */
function sections(text: string, name: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  // One class for the heading's tail: runs of optional spaces, colons and hashes backtrack.
  const heading = new RegExp(`^[ \\t]{0,3}(#{1,6})[ \\t]+${name}[ \\t:#]*$`, 'gim');
  for (const m of text.matchAll(heading)) {
    const level = m[1].length;
    const start = m.index + m[0].length + (text[m.index + m[0].length] === '\n' ? 1 : 0);
    // A section ends at the next heading of its level or above, or at the next of the proof
    // document's own sections whatever its level (`# Problem` is often followed by `## Solution`).
    const next = new RegExp(
      `^[ \\t]{0,3}(?:#{1,${level}}[ \\t]|#{1,6}[ \\t]+(?:${SECTION_NAMES})[ \\t:#]*$)`,
      'im',
    ).exec(text.slice(start));
    found.push({ start, end: next ? start + next.index : text.length });
  }
  const env = name.toLowerCase();
  for (const s of closedSpans(text, `\\begin{${env}}`, `\\end{${env}}`)) {
    found.push({ start: s.innerStart, end: s.innerStart + s.inner.length });
  }
  return found.sort((x, y) => x.start - y.start);
}

const section = (text: string, name: string) => sections(text, name)[0] ?? null;
const cleanProblem = (body: string) => removeClosedSpans(body, '<!--', '-->').trim();

/**
 * The problem nearest before `offset` (the first one when the cursor is above them all), for
 * documents that hold several problems; null when the document has no problem section.
 */
export function problemAt(text: string, offset: number): string | null {
  const all = sections(text, 'Problem');
  const before = all.filter((r) => r.start <= offset).pop() ?? all[0];
  return before ? cleanProblem(text.slice(before.start, before.end)) || null : null;
}

/**
 * The problem statement of a file given to Prove: its `## Problem` section, or the whole text
 * when it has none (a plain-text problem), with what is wrong when it is empty.
 */
export function problemFromDocument(text: string): { text: string; problems: string[] } {
  const range = section(text, 'Problem');
  if (!range) {
    const whole = text.trim();
    return { text: whole, problems: whole === '' ? ['the file is empty'] : [] };
  }
  const body = cleanProblem(text.slice(range.start, range.end));
  return { text: body, problems: body === '' ? ['the "## Problem" section is empty'] : [] };
}

export function parseProofDocument(text: string): ProofDocument {
  const problemRange = section(text, 'Problem');
  const problem = problemRange ? cleanProblem(text.slice(problemRange.start, problemRange.end)) : '';
  const marker = /<!--\s*stepwise:id=([\w.-]+)\s*-->/.exec(text);
  const solutionRange = section(text, 'Solution');
  let solution: ProofDocument['solution'] = null;
  let steps: Step[] = [];
  if (solutionRange) {
    const raw = text.slice(solutionRange.start, solutionRange.end);
    solution = { text: raw, start: solutionRange.start, end: solutionRange.end };
    steps = splitSteps(raw)
      // Label marks and HTML comments are annotations, not steps.
      .filter((s) => !/^<!--[\s\S]*-->$/.test(s.text))
      .map((s, index) => ({
        ...s,
        index,
        start: s.start + solutionRange.start,
        end: s.end + solutionRange.start,
      }));
  }
  return {
    problemId: marker?.[1] ?? `p-${sha(problem || text)}`,
    problem,
    solution,
    steps,
  };
}

/** The step whose text contains `offset` (or, on a blank line, the step just before it). */
export function stepAt(doc: ProofDocument, offset: number): Step | undefined {
  return (
    doc.steps.find((s) => offset >= s.start && offset <= s.end) ??
    [...doc.steps]
      .reverse()
      .find((s) => s.end <= offset && doc.solution !== null && offset <= doc.solution.end)
  );
}

/**
 * The identity of a solution given only its text (a Prove run's candidate, which never changes).
 * A solution in a document is identified by the document instead, so that editing a step makes
 * its label stale rather than orphaned.
 */
export function solutionIdOf(solution: string): string {
  return `s-${sha(
    splitSteps(solution)
      .map((s) => s.text)
      .join('\n'),
  )}`;
}

export function problemIdOf(problem: string): string {
  return `p-${sha(problem)}`;
}
