/**
 * Final answers against reference answers. A proof's final answer is the last `\boxed{}` of its
 * Solution; a problem's reference answer comes from a dataset row (MATH-500's `answer`) or from
 * the proof document itself:
 *
 *   ## Problem
 *   What is the units digit of $18^6$?
 *
 *   Answer: 4
 *
 * A line `Answer: …` (also `**Answer:** …` or `Reference answer: …`) in the problem section is the
 * reference answer. It is taken out of the statement the model sees, so the model is never shown
 * the answer it is checked against. Nothing here throws.
 */
import { findBoxed } from './boxed';

/** The last boxed answer of a proof, or null. */
export function finalAnswerOf(proof: string): string | null {
  const boxes = findBoxed(proof);
  const last = boxes[boxes.length - 1];
  return last ? last.content.trim() : null;
}

// Anchored at both ends with no overlapping repetitions, so it is linear in the line's length.
const ANSWER_LINE = /^[ \t]*(?:[*_]{1,2})?(?:reference[ \t]+)?answer[ \t]*:(?:[*_]{1,2})?(.*)$/i;

/** The problem statement without its `Answer:` line, and the reference answer that line states. */
export function splitReferenceAnswer(problem: string): { problem: string; referenceAnswer: string | null } {
  const lines = problem.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = ANSWER_LINE.exec(lines[i]);
    if (!m) continue;
    const answer = m[1]
      .trim()
      .replace(/^[*_]{1,2}|[*_]{1,2}$/g, '')
      .trim();
    if (answer === '') continue;
    const rest = [...lines.slice(0, i), ...lines.slice(i + 1)].join('\n').trim();
    return { problem: rest, referenceAnswer: answer };
  }
  return { problem, referenceAnswer: null };
}

/**
 * Whether two final answers say the same thing. A small normaliser until the evaluation's careful
 * equivalence replaces it (same name, same place): it ignores math delimiters, spacing, `\left` /
 * `\right`, `\text{}` wrappers, degree signs, a trailing full stop, `\dfrac` vs `\frac`, and compares
 * numbers (decimals, fractions, `\frac{a}{b}`) by value.
 */
export function answersEquivalent(a: string, b: string): boolean {
  const x = normaliseAnswer(a);
  const y = normaliseAnswer(b);
  if (x === '' || y === '') return false;
  if (x === y) return true;
  const nx = numericValue(x);
  const ny = numericValue(y);
  return nx !== null && ny !== null && Math.abs(nx - ny) <= 1e-9 * Math.max(1, Math.abs(nx), Math.abs(ny));
}

export function normaliseAnswer(answer: string): string {
  let s = answer.trim();
  const boxed = findBoxed(s);
  if (boxed.length === 1 && boxed[0].start === 0) s = boxed[0].content;
  return s
    .replace(/^\$+|\$+$/g, '')
    .replace(/\\[()[\]]/g, '')
    .replace(/\\(?:text|textbf|mathrm|mbox)\s*\{([^{}]*)\}/g, '$1')
    .replace(/\\(?:left|right|displaystyle|!|,|;|:)/g, '')
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/\^\s*\{?\\circ\}?|°/g, '')
    .replace(/\\%|%/g, '')
    .replace(/\s+/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

function numericValue(s: string): number | null {
  const plain = s.replace(/,(?=\d{3}\b)/g, '');
  if (/^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(plain)) return Number(plain);
  const frac = /^([-+]?)\\frac\{([-+]?\d+)\}\{(\d+)\}$/.exec(plain) ?? /^([-+]?)(\d+)\/(\d+)$/.exec(plain);
  if (frac && Number(frac[3]) !== 0) return (frac[1] === '-' ? -1 : 1) * (Number(frac[2]) / Number(frac[3]));
  return null;
}
