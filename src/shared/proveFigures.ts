/**
 * The figures the Prove panel shows for one candidate, each read from the one field of the run
 * document that the core computed it into. The rounds timeline, the best-of-N table and the score
 * cards all take their numbers from here, so that no two places of the panel can show two values
 * for the same score of the same run (test/unit/prove/panelFigures.test.ts checks them against
 * the rewards, the stop reason and the step scores).
 */
import type { CandidateRecord } from '../core/prove/runSchema';

export interface CandidateFigures {
  /** Expected self-score: the mean of its distribution, which R_score also uses. */
  self: number | null;
  /** Expected verifier score over the passes: R_Y. */
  verifier: number | null;
  /** Expected meta-verifier score: R_meta. */
  meta: number | null;
  /** The step scores aggregated as the run's options say (product or min). */
  solution: number | null;
  /** The reward R; null for a checked proof, which has no self-evaluation to reward. */
  reward: number | null;
  /** Calibrated P(correct); null without a calibrator covering the candidate's signals. */
  pCorrect: number | null;
}

export function candidateFigures(c: CandidateRecord): CandidateFigures {
  return {
    self: c.selfScoreDistribution?.expected ?? c.parsed.selfScore,
    verifier: c.verifier?.score ?? null,
    meta: c.meta?.score ?? null,
    solution: c.stepScores?.solutionScore ?? null,
    reward: c.rewards.r,
    pCorrect: c.judgment?.pCorrect ?? null,
  };
}
