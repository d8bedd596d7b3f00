/**
 * A candidate's judgment: P(correct) from the calibrator, the words a panel shows for it, and the
 * evidence — each signal's value and how far it moved the log-odds. Recorded per candidate in the
 * run document; refinement stops on it and best-of-N ranks by it.
 */
import * as fs from 'node:fs';
import { z } from 'zod';
import { resourcePath } from '../resources';
import { modelFor, parseCalibrator, predict, type Calibrator } from './calibrator';
import { FEATURE_EXPLANATIONS, FEATURE_NAMES, type FeatureName, type Features } from './features';
import { contributions } from './logistic';

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
  /** The calibrator file and the map its model applies. */
  calibrator: z.object({ source: z.string(), map: z.enum(['identity', 'platt', 'isotonic']) }),
});
export type Judgment = z.infer<typeof JudgmentSchema>;

export function verdictOf(p: number): Judgment['verdict'] {
  return p < LIKELY_WRONG ? 'likely-wrong' : p >= LIKELY_RIGHT ? 'likely-right' : 'uncertain';
}

/** The judgment of a candidate, or null when no model of the calibrator covers its signals. */
export function judge(calibrator: Calibrator, features: Features, source = 'calibrator'): Judgment | null {
  const model = modelFor(calibrator, features);
  if (!model) return null;
  const x = model.features.map((f) => features[f] as number);
  const parts = contributions(model, x);
  const pCorrect = predict(model, features);
  return {
    pCorrect,
    verdict: verdictOf(pCorrect),
    evidence: model.features.map((feature, i) => ({ feature, value: x[i], contribution: parts[i] })),
    unused: FEATURE_NAMES.filter((f) => features[f] !== null && !model.features.includes(f)),
    calibrator: { source, map: model.map.kind },
  };
}

/** "likely wrong (P = 0.12)": what a panel and the CLI say of a judgment. */
export function judgmentText(j: Judgment | null): string {
  if (!j) return 'no calibrated judgment';
  return `${j.verdict.replace('-', ' ')} (P = ${j.pCorrect.toFixed(2)})`;
}

/** The evidence in words, strongest first: "verifier score 0.58 (−0.41)". */
export function evidenceLines(j: Judgment): string[] {
  return [...j.evidence]
    .sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution))
    .map(
      (e) =>
        `${label(e.feature)} ${e.value.toFixed(2)} (${e.contribution >= 0 ? '+' : '−'}${Math.abs(e.contribution).toFixed(2)} log-odds): ${FEATURE_EXPLANATIONS[e.feature]}`,
    );
}

const LABELS: Record<FeatureName, string> = {
  selfScore: 'self score',
  verifierScore: 'verifier score',
  metaScore: 'meta-verifier score',
  agreement: 'answer agreement',
  weakestStep: 'weakest step',
  truncated: 'cut at token limit',
  boxed: 'boxed answer',
};
const label = (f: FeatureName) => LABELS[f];

export const DEFAULT_CALIBRATOR_FILE = 'prompts/judgment/calibrator.json';

/**
 * Reads a calibrator file (the shipped one by default). A missing or malformed file is an error
 * that names the file and what is wrong, never a silent "no judgment".
 */
export function loadCalibrator(file = resourcePath(DEFAULT_CALIBRATOR_FILE)): Calibrator {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`Cannot read the judging calibrator ${file}: ${(e as Error).message}`, { cause: e });
  }
  const parsed = parseCalibrator(value);
  if ('error' in parsed) throw new Error(`${file}: ${parsed.error}.`);
  return parsed.calibrator;
}
