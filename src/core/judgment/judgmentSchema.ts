/**
 * The judgment of a candidate as the run document records it, and the verdict words' bounds.
 * Only zod here: the run schema (and through it the webviews' protocol) imports this file.
 */
import { z } from 'zod';
import { FEATURE_NAMES } from './featureNames';

/** Below this P(correct) a candidate is "likely wrong"; at or above LIKELY_RIGHT, "likely right". */
export const LIKELY_WRONG = 0.3;
export const LIKELY_RIGHT = 0.7;

const featureName = z.enum(FEATURE_NAMES);
export const JudgmentSchema = z.object({
  pCorrect: z.number().min(0).max(1),
  verdict: z.enum(['likely-wrong', 'uncertain', 'likely-right']),
  /** Signals the calibrator's model used: value and contribution to the log-odds (before the map). */
  evidence: z.array(z.object({ feature: featureName, value: z.number(), contribution: z.number() })),
  /** Signals the candidate has that the model did not use (the shipped calibrator never saw them). */
  unused: z.array(featureName),
  /**
   * The calibrator file and the map its model applies; the models it was fitted on, and whether
   * this candidate came from others (then P ranks candidates but its scale is another model's).
   */
  calibrator: z.object({
    source: z.string(),
    map: z.enum(['identity', 'platt', 'isotonic']),
    fittedOn: z.object({ generator: z.string(), verifier: z.string() }).optional(),
    otherModels: z.boolean().optional(),
  }),
});
export type Judgment = z.infer<typeof JudgmentSchema>;

export function verdictOf(p: number): Judgment['verdict'] {
  return p < LIKELY_WRONG ? 'likely-wrong' : p >= LIKELY_RIGHT ? 'likely-right' : 'uncertain';
}
