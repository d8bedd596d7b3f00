/** Self-consistency among the candidates of one problem, shared by the summaries and the judgment. */
import { answersEquivalent } from '../math/answers';
import type { CandidateOutcome } from './proveEval';

/**
 * Self-consistency: candidates vote with their answers, equivalent answers counting as one
 * (`\frac12` and `0.5`); the largest group wins, ties going to the group seen first. Candidates
 * without a boxed answer do not vote.
 */
export function majorityVote(candidates: CandidateOutcome[]): CandidateOutcome | undefined {
  const groups: CandidateOutcome[][] = [];
  for (const c of candidates) {
    if (c.answer === null) continue;
    const group = groups.find((g) => answersEquivalent(g[0].answer!, c.answer!));
    if (group) group.push(c);
    else groups.push([c]);
  }
  let best: CandidateOutcome[] | undefined;
  for (const g of groups) if (!best || g.length > best.length) best = g;
  return best?.[0];
}
