/**
 * The signals a candidate's P(correct) is computed from. Each is a number in [0, 1] or null when
 * the run did not measure it (meta-verification off, no step scores, a single candidate), so a
 * calibrator can fall back to a model over the signals that are present instead of guessing.
 */
import { answersEquivalent } from '../math/answers';
import type { FeatureName } from './featureNames';

export { FEATURE_NAMES, type FeatureName } from './featureNames';
export type Features = Record<FeatureName, number | null>;

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
  /** The learned scorer's score of the proof (learnedScorer.ts); absent or null without one. */
  learnedScore?: number | null;
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
    learnedScore: c.learnedScore ?? null,
    truncated: isTruncated(c.finishReason) ? 1 : 0,
    boxed: c.answer === null ? 0 : 1,
  }));
}

/** Cut at its token limit: the proof (or its self-evaluation) did not end by itself. */
export function isTruncated(finishReason: string): boolean {
  return finishReason === 'length';
}
