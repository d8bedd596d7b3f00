import { indexOfIgnoreCase, removeClosedSpans } from '../text/spans';
import { CLOSING_SENTENCE, readScore } from './score';
import { truncate } from '../text/truncate';

/**
 * Parsing the generator's output protocol:
 *
 *   ## Solution
 *   <proof>
 *   ## Self Evaluation
 *   Here is my evaluation of the solution: <analysis>
 *   Based on my evaluation, the final overall score should be: \boxed{X}      (X ∈ {0, 0.5, 1})
 *
 * The output is untrusted model text: the parser never throws; it returns what it found and names
 * every deviation from the protocol in `problems`. `formatReward` is 1 only when there is none.
 */
export interface ParsedProofOutput {
  proof: string;
  selfAnalysis: string;
  /** Read from the Self Evaluation only; a `\boxed` inside the proof is part of the proof. */
  selfScore: number | null;
  formatReward: 0 | 1;
  problems: string[];
}

export const SELF_SCORES = [0, 0.5, 1] as const;
export const OPENING_SENTENCE = 'Here is my evaluation of the solution:';
export { CLOSING_SENTENCE };

/** Removes `<think>…</think>` blocks (reasoning models emit them; they are never the answer). */
export function stripThinking(text: string): { text: string; problems: string[] } {
  const problems: string[] = [];
  let out = removeClosedSpans(text, '<think>', '</think>', true);
  // Some chat templates put the opening tag in the prompt, so the output starts inside the block.
  const strayClose = indexOfIgnoreCase(out, '</think>');
  if (strayClose >= 0) {
    out = out.slice(strayClose + '</think>'.length);
  }
  const unclosed = indexOfIgnoreCase(out, '<think>');
  if (unclosed >= 0) {
    problems.push('a <think> block is never closed; the text after it was ignored');
    out = out.slice(0, unclosed);
  }
  return { text: out, problems };
}

interface Heading {
  kind: 'solution' | 'evaluation';
  exact: boolean;
  raw: string;
  start: number;
  end: number;
}

// Lenient on purpose (any level, any case, a trailing colon) so that a near-miss is still split
// into its sections; `exact` records whether it was the protocol's own spelling. The tail is one
// character class: separate optional runs of spaces, colons and hashes backtrack polynomially on
// a heading followed by thousands of spaces.
const HEADING = /^[ \t]{0,3}(#{1,6})[ \t]*(solution|self[ \t-]*evaluation)[ \t:#]*$/gim;

function findHeadings(text: string): Heading[] {
  const headings: Heading[] = [];
  for (const m of text.matchAll(HEADING)) {
    const kind = m[2].toLowerCase() === 'solution' ? 'solution' : 'evaluation';
    const exact = m[0].trim() === (kind === 'solution' ? '## Solution' : '## Self Evaluation');
    const start = m.index ?? 0;
    headings.push({ kind, exact, raw: m[0].trim(), start, end: start + m[0].length });
  }
  return headings;
}

export function parseProofOutput(raw: string): ParsedProofOutput {
  const problems: string[] = [];
  const input = typeof raw === 'string' ? raw : '';
  const stripped = stripThinking(input.replace(/\r\n?/g, '\n'));
  problems.push(...stripped.problems);
  const text = stripped.text;
  if (text.trim() === '') {
    return {
      proof: '',
      selfAnalysis: '',
      selfScore: null,
      formatReward: 0,
      problems: [...problems, 'the output is empty'],
    };
  }

  const headings = findHeadings(text);
  const solutions = headings.filter((h) => h.kind === 'solution');
  const evaluations = headings.filter((h) => h.kind === 'evaluation');
  for (const h of headings) {
    if (!h.exact)
      problems.push(
        `heading "${h.raw}" should be written "${h.kind === 'solution' ? '## Solution' : '## Self Evaluation'}"`,
      );
  }
  if (solutions.length === 0) problems.push('missing the "## Solution" section');
  if (solutions.length > 1) problems.push(`${solutions.length} "## Solution" headings; expected one`);
  if (evaluations.length === 0) problems.push('missing the "## Self Evaluation" section');
  if (evaluations.length > 1)
    problems.push(`${evaluations.length} "## Self Evaluation" headings; expected one`);

  const solution = solutions[0];
  let proof: string;
  let selfAnalysis = '';
  if (solution) {
    const evalAfter = evaluations.find((e) => e.start > solution.start);
    proof = text.slice(solution.end, evalAfter ? evalAfter.start : text.length);
    const lastEval = evaluations[evaluations.length - 1];
    if (evalAfter) {
      selfAnalysis = text.slice(lastEval.end);
    } else if (evaluations.length > 0) {
      problems.push('the "## Self Evaluation" section comes before "## Solution"');
      selfAnalysis = text.slice(evaluations[0].end, solution.start);
    }
  } else if (evaluations.length > 0) {
    // Without a Solution heading, what precedes the evaluation is the best guess at the proof.
    proof = text.slice(0, evaluations[0].start);
    selfAnalysis = text.slice(evaluations[evaluations.length - 1].end);
  } else {
    proof = text;
  }
  proof = proof.trim();
  selfAnalysis = selfAnalysis.trim();
  if (proof === '') problems.push('the Solution section is empty');

  const selfScore = readSelfScore(selfAnalysis, evaluations.length > 0, problems);
  return { proof, selfAnalysis, selfScore, formatReward: problems.length === 0 ? 1 : 0, problems };
}

// The score is read by the reader every role shares; the format check adds what the protocol
// demands of a self-evaluation: its opening sentence, one box, and the closing sentence last.
function readSelfScore(selfAnalysis: string, hasSection: boolean, problems: string[]): number | null {
  if (!hasSection) return null;
  if (selfAnalysis === '') {
    problems.push('the Self Evaluation section is empty');
    return null;
  }
  if (!selfAnalysis.startsWith(OPENING_SENTENCE)) {
    problems.push(`the Self Evaluation does not start with "${OPENING_SENTENCE}"`);
  }
  const reading = readScore(selfAnalysis, 'unit');
  if (reading.boxes === 0) {
    problems.push('no \\boxed{} score in the Self Evaluation');
    return null;
  }
  if (reading.boxes > 1)
    problems.push(`${reading.boxes} \\boxed{} values in the Self Evaluation; expected one`);
  if (!reading.closing) {
    problems.push(`the Self Evaluation does not end with "${CLOSING_SENTENCE} \\boxed{X}"`);
  } else if (!reading.endsWithScore) {
    problems.push('the Self Evaluation does not end with its closing sentence and score');
  }
  if (reading.rawScore === null) {
    problems.push(`the self-score \\boxed{${truncate(reading.box?.content ?? '', 40)}} is not a number`);
    return null;
  }
  if (reading.score === null) {
    problems.push(`the self-score ${reading.rawScore} is not one of 0, 0.5, 1`);
    return null;
  }
  return reading.score;
}
