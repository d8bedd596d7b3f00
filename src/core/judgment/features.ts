/**
 * The signals a candidate's P(correct) is computed from. Each is a number in [0, 1] or null when
 * the run did not measure it (meta-verification off, no step scores, a single candidate), so a
 * calibrator can fall back to a model over the signals that are present instead of guessing.
 */
import { answersEquivalent } from '../eval/answers';

export const FEATURE_NAMES = [
  'selfScore',
  'verifierScore',
  'metaScore',
  'agreement',
  'weakestStep',
  'truncated',
  'boxed',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
export type Features = Record<FeatureName, number | null>;

/** One line per signal, for the evidence a panel shows behind its details toggle. */
export const FEATURE_EXPLANATIONS: Record<FeatureName, string> = {
  selfScore: "the model's own expected score of its proof (self-evaluation)",
  verifierScore: 'expected verifier score of the proof (R_Y, the mean of its k passes)',
  metaScore: 'meta-verifier: are the issues the self-evaluation names real? (R_meta)',
  agreement: "share of this problem's candidates whose final answer is equivalent to this one's",
  weakestStep: 'the lowest step score of the proof',
  truncated: 'the output was cut at its token limit (1) or ended by itself (0)',
  boxed: 'the Solution ends in a boxed final answer (1) or boxes none (0)',
};

/** What a candidate contributes, whichever record it comes from (a run document, an eval journal). */
export interface FeatureInput {
  /** The Solution's last boxed answer; null when it boxes none. */
  answer: string | null;
  selfScore: number | null;
  verifierScore: number | null;
  metaScore: number | null;
  /** Step scores of the proof; null or empty when none were taken. */
  stepScores: readonly number[] | null;
  finishReason: string;
}

/**
 * Features of every candidate of one problem. Agreement (self-consistency) is the share of the
 * group, this candidate included, whose answer is equivalent to its own; a candidate without a
 * boxed answer agrees with nobody (0). With a single candidate there is nothing to agree with,
 * so agreement is null there rather than a constant 1 that would read as consensus.
 */
export function candidateFeatures(group: readonly FeatureInput[]): Features[] {
  const equivalent = group.map((a, i) =>
    group.map(
      (b, j) => i === j || (a.answer !== null && b.answer !== null && answersEquivalent(a.answer, b.answer)),
    ),
  );
  return group.map((c, i) => ({
    selfScore: c.selfScore,
    verifierScore: c.verifierScore,
    metaScore: c.metaScore,
    agreement:
      group.length < 2 ? null : c.answer === null ? 0 : equivalent[i].filter(Boolean).length / group.length,
    weakestStep: c.stepScores && c.stepScores.length ? Math.min(...c.stepScores) : null,
    truncated: isTruncated(c.finishReason) ? 1 : 0,
    boxed: c.answer === null ? 0 : 1,
  }));
}

/** Cut at its token limit: the proof (or its self-evaluation) did not end by itself. */
export function isTruncated(finishReason: string): boolean {
  return finishReason === 'length';
}
