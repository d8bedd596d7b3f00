import { createHash } from 'node:crypto';
import { splitSteps, type Step } from './split';

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

function section(text: string, name: string): { start: number; end: number } | null {
  const heading = new RegExp(`^[ \\t]{0,3}(#{1,6})[ \\t]+${name}[ \\t]*:?[ \\t]*#*[ \\t]*$`, 'im').exec(text);
  if (heading) {
    const level = heading[1].length;
    const start =
      heading.index + heading[0].length + (text[heading.index + heading[0].length] === '\n' ? 1 : 0);
    // A section ends at the next heading of its level or above, or at the next of the proof
    // document's own sections whatever its level (`# Problem` is often followed by `## Solution`).
    const next = new RegExp(
      `^[ \\t]{0,3}(?:#{1,${level}}[ \\t]|#{1,6}[ \\t]+(?:${SECTION_NAMES})[ \\t]*:?[ \\t]*#*[ \\t]*$)`,
      'im',
    ).exec(text.slice(start));
    return { start, end: next ? start + next.index : text.length };
  }
  const env = new RegExp(
    `\\\\begin\\{${name.toLowerCase()}\\}([\\s\\S]*?)\\\\end\\{${name.toLowerCase()}\\}`,
  ).exec(text);
  if (env) {
    const start = env.index + `\\begin{${name.toLowerCase()}}`.length;
    return { start, end: start + env[1].length };
  }
  return null;
}

export function parseProofDocument(text: string): ProofDocument {
  const problemRange = section(text, 'Problem');
  const problem = (problemRange ? text.slice(problemRange.start, problemRange.end) : '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .trim();
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
