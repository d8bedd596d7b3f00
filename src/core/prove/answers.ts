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
 *
 * Whether two answers say the same thing is the evaluation's careful equivalence, so that Prove,
 * `stepwise eval` and the labelling queue agree on what counts as right.
 */
export { answersEquivalent, finalBoxedAnswer as finalAnswerOf } from '../math/answers';

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
