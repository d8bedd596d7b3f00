/**
 * The learned scorer: an L2 logistic head over how sure the generator was of a proof's tokens
 * (confidence.ts), fitted from candidates labelled automatically (final answer against the
 * reference) and saved as versioned JSON. Its output, a score in [0, 1], is one more signal of
 * P(correct) (`learnedScore`); the calibrator decides on held-out data whether it earns weight.
 * A head reads one model's log-probabilities, so the file names the model it was fitted on.
 */
import * as fs from 'node:fs';
import { CONFIDENCE_FEATURES, type Confidence, type ConfidenceName } from './confidence';
import { L2_GRID } from './calibrator';
import { fitLogistic, logOdds, sigmoid, type LogisticModel } from './logistic';
import { foldOf } from './split';

export const LEARNED_SCORER_SCHEMA = 'stepwise.learned-scorer';
export const LEARNED_SCORER_VERSION = 1;

export interface LearnedScorer extends LogisticModel {
  schema: typeof LEARNED_SCORER_SCHEMA;
  version: typeof LEARNED_SCORER_VERSION;
  /** What the head reads: pooled token log-probabilities of the proof under `model`. */
  kind: 'token-confidence';
  /** The generator whose log-probabilities it was fitted on. */
  model: string;
  features: ConfidenceName[];
  l2: number;
  /** Rows and positives it was fitted on, and the cross-validated log loss that chose the penalty. */
  fit: { rows: number; positives: number; cvLogLoss: number };
  source: Record<string, unknown>;
}

export interface ConfidenceSample {
  /** The problem's id: folds keep a problem's candidates together. */
  problem: string;
  confidence: Confidence;
  correct: boolean;
}

export interface LearnedFitOptions {
  model: string;
  l2?: readonly number[];
  folds?: number;
  source?: Record<string, unknown>;
}

const rowOf = (c: Confidence) => CONFIDENCE_FEATURES.map((f) => c[f]);

/** Fits the head, its penalty chosen by log loss over folds of problems (no candidate's problem seen). */
export function fitLearnedScorer(
  samples: readonly ConfidenceSample[],
  options: LearnedFitOptions,
): LearnedScorer {
  const grid = options.l2 ?? L2_GRID;
  const folds = options.folds ?? 5;
  let best = { l2: grid[0], loss: Infinity };
  for (const l2 of grid) {
    const scores = outOfFoldScores(samples, { l2, folds });
    const loss = logLoss(scores, samples);
    if (loss < best.loss) best = { l2, loss };
  }
  const head = fitLogistic(
    samples.map((s) => rowOf(s.confidence)),
    samples.map((s) => s.correct),
    best.l2,
  );
  return {
    schema: LEARNED_SCORER_SCHEMA,
    version: LEARNED_SCORER_VERSION,
    kind: 'token-confidence',
    model: options.model,
    features: [...CONFIDENCE_FEATURES],
    l2: best.l2,
    ...head,
    fit: {
      rows: samples.length,
      positives: samples.filter((s) => s.correct).length,
      cvLogLoss: best.loss,
    },
    source: options.source ?? {},
  };
}

/**
 * Each sample's score from a head fitted without its problem's fold. A calibrator fitted on the
 * head's own training rows would see scores better than any new proof gets; these are not.
 */
export function outOfFoldScores(
  samples: readonly ConfidenceSample[],
  options: { l2: number; folds?: number },
): number[] {
  const folds = options.folds ?? 5;
  const fold = samples.map((s) => foldOf(s.problem, folds));
  const scores = new Array<number>(samples.length).fill(0.5);
  for (let k = 0; k < folds; k++) {
    const train = samples.filter((_, i) => fold[i] !== k);
    const head = fitLogistic(
      train.map((s) => rowOf(s.confidence)),
      train.map((s) => s.correct),
      options.l2,
    );
    samples.forEach((s, i) => {
      if (fold[i] === k) scores[i] = sigmoid(logOdds(head, rowOf(s.confidence)));
    });
  }
  return scores;
}

export function learnedScore(scorer: LearnedScorer, confidence: Confidence): number {
  return sigmoid(
    logOdds(
      scorer,
      scorer.features.map((f) => confidence[f]),
    ),
  );
}

function logLoss(scores: readonly number[], samples: readonly ConfidenceSample[]): number {
  const eps = 1e-6;
  return (
    scores.reduce(
      (a, p, i) => a - Math.log(samples[i].correct ? Math.max(eps, p) : Math.max(eps, 1 - p)),
      0,
    ) / Math.max(1, scores.length)
  );
}

/** Reads a learned scorer's JSON, saying what is wrong with one that is not a learned scorer. */
export function parseLearnedScorer(value: unknown): { scorer: LearnedScorer } | { error: string } {
  const v = value as Partial<LearnedScorer> | null;
  if (!v || typeof v !== 'object' || v.schema !== LEARNED_SCORER_SCHEMA)
    return { error: `not a learned scorer (its "schema" is not "${LEARNED_SCORER_SCHEMA}")` };
  if (v.version !== LEARNED_SCORER_VERSION)
    return {
      error: `learned scorer version ${String(v.version)} is not supported (this Stepwise reads ${LEARNED_SCORER_VERSION})`,
    };
  const ok =
    v.kind === 'token-confidence' &&
    typeof v.model === 'string' &&
    Array.isArray(v.features) &&
    v.features.every((f) => (CONFIDENCE_FEATURES as readonly string[]).includes(f)) &&
    [v.mean, v.scale, v.weights].every(
      (a) => Array.isArray(a) && a.length === v.features!.length && a.every(Number.isFinite),
    ) &&
    typeof v.bias === 'number';
  return ok ? { scorer: v as LearnedScorer } : { error: 'its head is malformed' };
}

/** Reads a learned scorer file; a missing or malformed one is an error naming the file. */
export function loadLearnedScorer(file: string): LearnedScorer {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`Cannot read the learned scorer ${file}: ${(e as Error).message}`, { cause: e });
  }
  const parsed = parseLearnedScorer(value);
  if ('error' in parsed) throw new Error(`${file}: ${parsed.error}.`);
  return parsed.scorer;
}
