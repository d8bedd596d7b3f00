/**
 * Scores as distributions. A constrained verdict is a choice among the values its scale allows,
 * and the model's probability of each value is kept; a verdict read from free text puts all the
 * mass on the value written. Either way every consumer (rewards, ranking, calibration, the panel)
 * reads the same shape and uses the expected value.
 */
import type { OptionProbability } from '../model/plan';
import type { ScoreDistribution } from './scoreDistribution';
import { scaleOptions, toUnit, type ScoreScale } from './score';

/** All the mass on the value written (a verdict parsed from free text). */
export function pointMass(rawScore: number, scale: ScoreScale): ScoreDistribution | null {
  const value = toUnit(rawScore, scale);
  if (value === null) return null;
  const written = scaleOptions(scale).find((o) => Math.abs(Number(o) - rawScore) < 1e-9) ?? String(rawScore);
  return {
    source: 'parsed',
    options: scaleOptions(scale).map((option) => ({
      option,
      value: toUnit(Number(option), scale) ?? 0,
      probability: option === written ? 1 : 0,
    })),
    expected: value,
    chosen: written,
    optionMass: null,
  };
}

/**
 * The distribution of a constrained choice. The probabilities are renormalised over the scale's
 * options (the backend already does; this guards against rounding and a missing option).
 */
export function fromChoice(
  probabilities: readonly OptionProbability[],
  chosen: string,
  scale: ScoreScale,
  optionMass?: number,
): ScoreDistribution {
  const byOption = new Map(probabilities.map((p) => [p.option, clamp(p.probability)]));
  const options = scaleOptions(scale).map((option) => ({
    option,
    value: toUnit(Number(option), scale) ?? 0,
    probability: byOption.get(option) ?? 0,
  }));
  const mass = options.reduce((s, o) => s + o.probability, 0);
  for (const o of options) o.probability = mass > 0 ? o.probability / mass : 1 / options.length;
  return {
    source: 'choice',
    options,
    expected: expectedOf(options),
    chosen,
    optionMass: optionMass === undefined ? null : clamp(optionMass),
  };
}

export function expectedOf(options: readonly { value: number; probability: number }[]): number {
  const e = options.reduce((s, o) => s + o.value * o.probability, 0);
  return Math.min(1, Math.max(0, e));
}

/** The option with the most probability (the first of equals). */
export function mostLikely(d: ScoreDistribution): string {
  let best = d.options[0];
  for (const o of d.options) if (o.probability > best.probability) best = o;
  return best?.option ?? d.chosen;
}

function clamp(p: number): number {
  return Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 0;
}
