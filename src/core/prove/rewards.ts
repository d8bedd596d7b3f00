/**
 * The generator's reward with self-verification:
 *
 *   R_Y     = verifier score of the proof                     (0, 0.5 or 1; an average of k passes)
 *   R_score = 1 − |s − R_Y|                                   (s: the generator's self-score)
 *   R_Z     = R_score · R_meta                                (R_meta: are the claimed issues real?)
 *   R       = R_format · (α·R_Y + β·R_Z)                      (α = 0.76, β = 0.24 by default)
 *
 * Multiplying by R_format makes the format a hard requirement; multiplying R_score by R_meta means
 * a self-evaluation earns its share only when both its score and its reasons are right.
 *
 * Scores as distributions. Every score a run holds is the expected value of a distribution over
 * the values its scale allows (a constrained choice's probabilities; all the mass on the written
 * value for free text), and the formula is applied to those expected values:
 *
 *   R_Y = E[y] (averaged over the k passes),  R_meta = E[m],  s = E[self-score].
 *
 * For point masses this is the seed's formula exactly. Otherwise the terms that are linear in the
 * scores (α·R_Y, and R_meta as a factor of R_Z) equal the expected reward under those
 * distributions; R_score = 1 − |E[s] − E[y]| does not (by Jensen it is ≥ E[1 − |s − y|]): the
 * self-score is judged as a calibrated probability by its mean, so a generator that spreads its
 * mass to say "I am not sure" is not penalised for hedging, only for being wrong on average.
 */
import { DESIGN_CONSTANTS } from '../designConstants';

export interface RewardWeights {
  alpha: number;
  beta: number;
}

export const DEFAULT_REWARD_WEIGHTS: RewardWeights = { ...DESIGN_CONSTANTS.rewards };

export interface RewardInputs {
  formatReward: 0 | 1;
  /** The expected self-score. */
  selfScore: number | null;
  /** R_Y: the mean expected verifier score; null when no verifier pass gave a readable score. */
  verifierScore: number | null;
  /** R_meta: the expected meta-verifier score; null when the meta-verifier gave no readable score. */
  metaScore: number | null;
}

export interface Rewards {
  rFormat: 0 | 1;
  rY: number | null;
  rScore: number | null;
  rMeta: number | null;
  rZ: number | null;
  /** The total reward; null when it cannot be known (a score the formula needs is missing). */
  r: number | null;
}

export function computeRewards(
  inputs: RewardInputs,
  weights: RewardWeights = DEFAULT_REWARD_WEIGHTS,
): Rewards {
  const { formatReward: rFormat, selfScore, verifierScore: rY, metaScore: rMeta } = inputs;
  const rScore = selfScore !== null && rY !== null ? 1 - Math.abs(selfScore - rY) : null;
  const rZ = rScore !== null && rMeta !== null ? rScore * rMeta : null;
  let r: number | null;
  if (rFormat === 0) {
    // A wrong format earns nothing whatever the other scores are, so it needs none of them.
    r = 0;
  } else if (rY === null || rZ === null) {
    r = null;
  } else {
    r = rFormat * (weights.alpha * rY + weights.beta * rZ);
  }
  return { rFormat, rY, rScore, rMeta, rZ, r };
}

/** Weights must be finite and non-negative; they need not sum to 1, but the design's do. */
export function checkRewardWeights(weights: RewardWeights): string | null {
  for (const [name, value] of Object.entries(weights)) {
    if (!Number.isFinite(value) || value < 0)
      return `reward weight ${name} must be a non-negative number, got ${value}`;
  }
  return null;
}
