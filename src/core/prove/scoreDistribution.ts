/**
 * The saved shape of a score as a distribution (run documents, version 2 on). Its own module so
 * that the code building distributions (distribution.ts) and the upgrade of older runs need not
 * import the whole run schema, which imports the upgrade.
 */
import { z } from 'zod';

const probability = z.number().min(0).max(1);

/** One value a score can take, as written in its box, mapped to [0, 1], with its probability. */
export const ScoreOptionSchema = z.object({
  option: z.string(),
  value: probability,
  probability,
});

/**
 * A score as a distribution over the values its scale allows. `choice`: the model's probabilities
 * of the options, read from a constrained choice; `parsed`: a number read from free text (all the
 * mass on one value). `expected` is what every score field of the run holds.
 */
export const ScoreDistributionSchema = z.object({
  source: z.enum(['choice', 'parsed']),
  options: z.array(ScoreOptionSchema),
  expected: probability,
  /** The option written into the text (sampled or most likely). */
  chosen: z.string(),
  /**
   * The probability the model gave all the options together before they were renormalised: near 0,
   * it wanted to write something else and the distribution says little. Null for parsed scores.
   */
  optionMass: probability.nullable(),
});
export type ScoreDistribution = z.infer<typeof ScoreDistributionSchema>;
