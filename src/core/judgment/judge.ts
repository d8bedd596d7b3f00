/**
 * A candidate's judgment: P(correct) from the calibrator, the words a panel shows for it, and the
 * evidence — each signal's value and how far it moved the log-odds. Recorded per candidate in the
 * run document; refinement stops on it and best-of-N ranks by it.
 */
import * as fs from 'node:fs';
import { resourcePath } from '../resources';
import { modelFor, parseCalibrator, predict, type Calibrator } from './calibrator';
import { FEATURE_NAMES, type Features } from './features';
import { contributions } from './logistic';
import { verdictOf, type Judgment } from './judgmentSchema';

export { JudgmentSchema, verdictOf, LIKELY_RIGHT, LIKELY_WRONG, type Judgment } from './judgmentSchema';

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

export { judgmentText, evidenceLines } from './verdictText';

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
