/**
 * A judging calibrator: logistic regressions over candidate signals, each followed by a
 * calibration map, fitted by a pure function from labelled candidates and saved as a versioned
 * JSON file. One model is fitted per subset of the optional signals, so a run without
 * meta-verification or step scores, or with a single candidate, is judged by a model over the
 * signals it has; a candidate no model covers gets no judgment rather than a guess.
 */
import { applyMap, brier, fitMap, MAP_KINDS, type CalibrationMap, type MapKind } from './calibrationMap';
import { FEATURE_NAMES, type FeatureName, type Features } from './features';
import { fitLogistic, logOdds, sigmoid, type LogisticModel } from './logistic';
import { foldOf } from './split';

export const CALIBRATOR_SCHEMA = 'stepwise.judgment-calibrator';
export const CALIBRATOR_VERSION = 1;

/** Always known for a parsed candidate; every model uses them. */
const ALWAYS: readonly FeatureName[] = ['truncated', 'boxed'];
/** Penalties tried: few positives call for a strong one, many for a weak one; CV decides. */
export const L2_GRID: readonly number[] = [0.3, 1, 3, 10, 30, 100];
const OPTIONAL: readonly FeatureName[] = FEATURE_NAMES.filter((f) => !ALWAYS.includes(f));

export interface JudgmentModel extends LogisticModel {
  features: FeatureName[];
  l2: number;
  map: CalibrationMap;
  /** How it was fitted: rows, positives, and each map's cross-validated Brier score. */
  fit: { rows: number; positives: number; cvBrier: Partial<Record<MapKind, number>> };
}

/**
 * The models whose candidates a calibrator was fitted on. Its signals are one generator's self-scores
 * and one verifier's scores: under other models the same numbers mean other odds.
 */
export interface FittedOn {
  generator: string;
  verifier: string;
}

export interface Calibrator {
  schema: typeof CALIBRATOR_SCHEMA;
  version: typeof CALIBRATOR_VERSION;
  /** Where the labelled candidates came from (data file, split side, counts). */
  source: Record<string, unknown>;
  /** Absent in files from before calibrators named their models. */
  fittedOn?: FittedOn;
  /** The penalties the fit chose from; each model records its own. */
  l2: readonly number[];
  /** Most signals first: the first model whose signals a candidate has all of judges it. */
  models: JudgmentModel[];
}

export interface LabelledCandidate {
  /** The problem's id: folds keep a problem's candidates together. */
  problem: string;
  features: Features;
  correct: boolean;
}

export interface FitOptions {
  /** L2 penalties to choose from by cross-validated Brier score (one value: no choice). */
  l2?: readonly number[];
  folds?: number;
  /** Fewest positives and negatives a model needs; a model over rarer signals is not fitted. */
  minPerClass?: number;
  source?: Record<string, unknown>;
  fittedOn?: FittedOn;
}

/**
 * Fits every model. The map of each is chosen by cross-validation over problems: out-of-fold
 * log-odds from regressions that never saw the fold, each map kind fitted on the other folds'
 * scores and scored (Brier) on the fold; the lowest wins and is refitted on all out-of-fold scores.
 */
export function fitCalibrator(samples: readonly LabelledCandidate[], options: FitOptions = {}): Calibrator {
  const l2 = options.l2 ?? L2_GRID;
  const folds = options.folds ?? 5;
  const minPerClass = options.minPerClass ?? 5;
  const present = OPTIONAL.filter((f) => samples.some((s) => s.features[f] !== null));
  const models: JudgmentModel[] = [];
  for (const subset of subsetsOf(present)) {
    const features = FEATURE_NAMES.filter((f) => ALWAYS.includes(f) || subset.includes(f));
    const rows = samples.filter((s) => features.every((f) => s.features[f] !== null));
    const positives = rows.filter((r) => r.correct).length;
    if (positives < minPerClass || rows.length - positives < minPerClass) continue;
    models.push(fitModel(rows, features, l2, folds));
  }
  models.sort((a, b) => b.features.length - a.features.length);
  return {
    schema: CALIBRATOR_SCHEMA,
    version: CALIBRATOR_VERSION,
    source: options.source ?? {},
    ...(options.fittedOn ? { fittedOn: options.fittedOn } : {}),
    l2,
    models,
  };
}

function fitModel(
  rows: readonly LabelledCandidate[],
  features: FeatureName[],
  grid: readonly number[],
  folds: number,
): JudgmentModel {
  const x = rows.map((r) => features.map((f) => r.features[f] as number));
  const y = rows.map((r) => r.correct);
  const fold = rows.map((r) => foldOf(r.problem, folds));
  const outOfFold = (l2: number) => {
    const z = new Array<number>(rows.length).fill(0);
    for (let k = 0; k < folds; k++) {
      const train = rows.map((_, i) => i).filter((i) => fold[i] !== k);
      const m = fitLogistic(
        train.map((i) => x[i]),
        train.map((i) => y[i]),
        l2,
      );
      rows.forEach((_, i) => {
        if (fold[i] === k) z[i] = logOdds(m, x[i]);
      });
    }
    return z;
  };
  let l2 = grid[0];
  let oof = outOfFold(l2);
  for (const candidate of grid.slice(1)) {
    const z = outOfFold(candidate);
    if (brier(z.map(sigmoid), y) < brier(oof.map(sigmoid), y)) [l2, oof] = [candidate, z];
  }
  const cvBrier: Partial<Record<MapKind, number>> = {};
  for (const kind of MAP_KINDS) {
    const p = new Array<number>(rows.length).fill(0);
    for (let k = 0; k < folds; k++) {
      const train = rows.map((_, i) => i).filter((i) => fold[i] !== k);
      const map = fitMap(
        kind,
        train.map((i) => oof[i]),
        train.map((i) => y[i]),
      );
      rows.forEach((_, i) => {
        if (fold[i] === k) p[i] = applyMap(map, oof[i]);
      });
    }
    cvBrier[kind] = brier(p, y);
  }
  const best = MAP_KINDS.reduce((a, b) => ((cvBrier[b] as number) < (cvBrier[a] as number) ? b : a));
  const regression = fitLogistic(x, y, l2);
  // The identity map reads the final regression as is; the others were fitted on out-of-fold
  // scores, which is what the final regression's scores on new problems look like.
  return {
    features,
    l2,
    ...regression,
    map: fitMap(best, oof, y),
    fit: { rows: rows.length, positives: y.filter(Boolean).length, cvBrier },
  };
}

/** Every subset of `items`, largest first (2^k of them; k ≤ 5 signals). */
function subsetsOf<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let mask = 0; mask < 1 << items.length; mask++) out.push(items.filter((_, i) => mask & (1 << i)));
  return out.sort((a, b) => b.length - a.length);
}

/** The model that judges a candidate: the first (most signals) whose signals it has all of. */
export function modelFor(calibrator: Calibrator, features: Features): JudgmentModel | null {
  return calibrator.models.find((m) => m.features.every((f) => features[f] !== null)) ?? null;
}

export function predict(model: JudgmentModel, features: Features): number {
  return applyMap(
    model.map,
    logOdds(
      model,
      model.features.map((f) => features[f] as number),
    ),
  );
}

/** Reads a calibrator file's JSON, saying what is wrong with one that is not a calibrator. */
export function parseCalibrator(value: unknown): { calibrator: Calibrator } | { error: string } {
  const v = value as Partial<Calibrator> | null;
  if (!v || typeof v !== 'object' || v.schema !== CALIBRATOR_SCHEMA)
    return { error: `not a judging calibrator (its "schema" is not "${CALIBRATOR_SCHEMA}")` };
  if (v.version !== CALIBRATOR_VERSION)
    return {
      error: `calibrator version ${String(v.version)} is not supported (this Stepwise reads ${CALIBRATOR_VERSION})`,
    };
  const ok =
    Array.isArray(v.models) &&
    v.models.every(
      (m) =>
        Array.isArray(m.features) &&
        m.features.every((f) => (FEATURE_NAMES as readonly string[]).includes(f)) &&
        [m.mean, m.scale, m.weights].every((a) => Array.isArray(a) && a.length === m.features.length) &&
        typeof m.bias === 'number' &&
        MAP_KINDS.includes(m.map?.kind),
    );
  if (!ok) return { error: 'a model of the calibrator is malformed' };
  const on = v.fittedOn;
  if (on !== undefined && !(on && typeof on.generator === 'string' && typeof on.verifier === 'string'))
    return { error: 'its "fittedOn" must name a generator and a verifier model' };
  return { calibrator: v as Calibrator };
}
