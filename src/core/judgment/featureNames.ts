/** The names of the judging signals, in the order models list them (features.ts computes them). */
export const FEATURE_NAMES = [
  'selfScore',
  'verifierScore',
  'metaScore',
  'agreement',
  'weakestStep',
  'learnedScore',
  'truncated',
  'boxed',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
