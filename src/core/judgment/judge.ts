/**
 * A candidate's judgment: P(correct) from the calibrator, the words a panel shows for it, and the
 * evidence — each signal's value and how far it moved the log-odds. Recorded per candidate in the
 * run document; refinement stops on it and best-of-N ranks by it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resourcePath } from '../resources';
import { modelFor, parseCalibrator, predict, type Calibrator, type FittedOn } from './calibrator';
import { FEATURE_NAMES, type Features } from './features';
import { contributions } from './logistic';
import { verdictOf, type Judgment } from './judgmentSchema';

export { JudgmentSchema, verdictOf, LIKELY_RIGHT, LIKELY_WRONG, type Judgment } from './judgmentSchema';

/**
 * The models that produced a candidate's signals: the generator (absent for a person's own proof,
 * which has no self-score) and the verifier.
 */
export interface JudgedModels {
  generator?: string;
  verifier: string;
}

/** Whether a calibrator was fitted on other models than these (unknown for a file naming none). */
export function fittedOnOthers(fittedOn: FittedOn | undefined, models: JudgedModels): boolean {
  if (!fittedOn) return false;
  return (
    fittedOn.verifier !== models.verifier ||
    (models.generator !== undefined && fittedOn.generator !== models.generator)
  );
}

/** The judgment of a candidate, or null when no model of the calibrator covers its signals. */
export function judge(
  calibrator: Calibrator,
  features: Features,
  source = 'calibrator',
  models?: JudgedModels,
): Judgment | null {
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
    calibrator: {
      source,
      map: model.map.kind,
      ...(calibrator.fittedOn ? { fittedOn: calibrator.fittedOn } : {}),
      ...(models ? { otherModels: fittedOnOthers(calibrator.fittedOn, models) } : {}),
    },
  };
}

export { calibratorText, judgmentText, evidenceLines } from './verdictText';

/** The shipped calibrator used when none was fitted on the run's models. */
export const DEFAULT_CALIBRATOR_FILE = 'prompts/judgment/calibrator.json';
/** Every shipped calibrator lives here, one per pair of models it was fitted on. */
export const SHIPPED_CALIBRATOR_DIR = 'prompts/judgment';

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

/**
 * Every shipped calibrator, the default first: `calibrator*.json` in the shipped folder. One that
 * cannot be read is a broken install and an error, as the default's would be.
 */
export function loadShippedCalibrators(
  dir = resourcePath(SHIPPED_CALIBRATOR_DIR),
): { calibrator: Calibrator; source: string }[] {
  const defaultName = path.basename(DEFAULT_CALIBRATOR_FILE);
  const names = fs
    .readdirSync(dir)
    .filter((n) => /^calibrator.*\.json$/.test(n))
    .sort((a, b) => (a === defaultName ? -1 : b === defaultName ? 1 : a.localeCompare(b)));
  if (names[0] !== defaultName)
    throw new Error(`Cannot read the judging calibrator: ${dir} has no ${defaultName}.`);
  return names.map((n) => ({
    calibrator: loadCalibrator(path.join(dir, n)),
    source: `${SHIPPED_CALIBRATOR_DIR}/${n}`,
  }));
}
