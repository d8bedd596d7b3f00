/**
 * The learned step head: an L2 logistic model of P(step not wrong) over how surprised the
 * generator was by the step (stepFeatures.ts), with the threshold below which a step is called
 * the first wrong one. Everything it chooses — which features, the penalty, the threshold — is
 * chosen by cross-validation over folds of problems of the rows it is fitted on, never on the
 * rows it is reported on. Saved as versioned JSON naming the model whose log-probabilities it reads.
 */
import * as fs from 'node:fs';
import { L2_GRID } from './calibrator';
import { fitLogistic, logOdds, sigmoid, type LogisticModel } from './logistic';
import { foldOf } from './split';
import { STEP_FEATURES, type StepFeatureName, type StepFeatures } from './stepFeatures';

export const STEP_HEAD_SCHEMA = 'stepwise.learned-step-head';
export const STEP_HEAD_VERSION = 1;

export interface StepHead extends LogisticModel {
  schema: typeof STEP_HEAD_SCHEMA;
  version: typeof STEP_HEAD_VERSION;
  kind: 'step-surprise';
  /** The generator whose log-probabilities it reads. */
  model: string;
  features: StepFeatureName[];
  l2: number;
  /** A step scored below it is flagged wrong; the first flagged step is the predicted first error. */
  threshold: number;
  /** What the threshold maximised out of fold; heads saved before this field chose by first-error accuracy. */
  thresholdBy?: ThresholdCriterion;
  fit: {
    solutions: number;
    steps: number;
    wrongSteps: number;
    /** Out-of-fold log loss of the chosen head, and its first-error accuracy and ProcessBench F1 at the threshold. */
    cvLogLoss: number;
    cvFirstError: number;
    cvF1?: number;
  };
  source: Record<string, unknown>;
  /**
   * How it measured on problems it was not fitted on, written by `judgment train-steps` so that
   * whoever uses the head can say how far to trust it; absent for a head fitted without a held-out side.
   */
  heldOut?: StepHeadHeldOut;
}

export interface StepHeadHeldOut {
  problems: number;
  solutions: number;
  steps: number;
  stepAuroc: number | null;
  firstErrorAccuracy: number | null;
  /** ProcessBench F1 at the head's threshold (absent in heads saved before it was recorded). */
  processBenchF1?: number | null;
}

/** One labelled step of a labelled solution. */
export interface StepSample {
  /** The problem's text or id: folds keep a problem's solutions together. */
  problem: string;
  /** The solution it belongs to, and its place there. */
  solution: string;
  index: number;
  features: StepFeatures;
  wrong: boolean;
}

export interface StepFitOptions {
  model: string;
  l2?: readonly number[];
  folds?: number;
  /** Features to choose from (all by default). */
  features?: readonly StepFeatureName[];
  /** What the threshold maximises (ProcessBench F1 by default). */
  thresholdBy?: ThresholdCriterion;
  source?: Record<string, unknown>;
}

const SELECTION_L2 = [1, 30];

const rowOf = (features: readonly StepFeatureName[], f: StepFeatures) => features.map((n) => f[n]);

/**
 * Fits the head: features added greedily while they lower the out-of-fold log loss, then the
 * penalty of the chosen set, then the threshold that maximises the out-of-fold ProcessBench F1
 * (or first-error accuracy, when asked).
 */
export function fitStepHead(samples: readonly StepSample[], options: StepFitOptions): StepHead {
  const grid = options.l2 ?? L2_GRID;
  const folds = options.folds ?? 5;
  const pool = [...(options.features ?? STEP_FEATURES)];
  let chosen: StepFeatureName[] = [];
  let bestLoss = Infinity;
  // Features are chosen at two penalties (a cheap search on a 2-core CPU), the penalty after.
  for (;;) {
    let pick: { feature: StepFeatureName; loss: number } | undefined;
    for (const feature of pool.filter((f) => !chosen.includes(f)))
      for (const l2 of SELECTION_L2) {
        const loss = logLoss(outOfFoldStepScores(samples, [...chosen, feature], l2, folds), samples);
        if (loss < (pick?.loss ?? bestLoss - 1e-4)) pick = { feature, loss };
      }
    if (!pick) break;
    chosen = [...chosen, pick.feature];
    bestLoss = pick.loss;
  }
  if (!chosen.length) chosen = [pool[0]];
  let best = { l2: grid[0], loss: Infinity, scores: [] as number[] };
  for (const l2 of grid) {
    const scores = outOfFoldStepScores(samples, chosen, l2, folds);
    const loss = logLoss(scores, samples);
    if (loss < best.loss) best = { l2, loss, scores };
  }
  const criterion = options.thresholdBy ?? 'processbench-f1';
  const threshold = bestThreshold(samples, best.scores, criterion);
  const head = fitLogistic(
    samples.map((s) => rowOf(chosen, s.features)),
    samples.map((s) => !s.wrong),
    best.l2,
  );
  return {
    schema: STEP_HEAD_SCHEMA,
    version: STEP_HEAD_VERSION,
    kind: 'step-surprise',
    model: options.model,
    features: chosen,
    l2: best.l2,
    ...head,
    threshold: threshold.threshold,
    thresholdBy: criterion,
    fit: {
      solutions: new Set(samples.map((s) => s.solution)).size,
      steps: samples.length,
      wrongSteps: samples.filter((s) => s.wrong).length,
      cvLogLoss: best.loss,
      cvFirstError: threshold.firstError,
      cvF1: threshold.f1,
    },
    source: options.source ?? {},
  };
}

/** Each step's P(not wrong) from a head fitted without its problem's fold. */
export function outOfFoldStepScores(
  samples: readonly StepSample[],
  features: readonly StepFeatureName[],
  l2: number,
  folds = 5,
): number[] {
  const fold = samples.map((s) => foldOf(s.problem, folds));
  const scores = new Array<number>(samples.length).fill(0.5);
  for (let k = 0; k < folds; k++) {
    const train = samples.filter((_, i) => fold[i] !== k);
    if (!train.length) continue;
    const head = fitLogistic(
      train.map((s) => rowOf(features, s.features)),
      train.map((s) => !s.wrong),
      l2,
    );
    samples.forEach((s, i) => {
      if (fold[i] === k) scores[i] = sigmoid(logOdds(head, rowOf(features, s.features)));
    });
  }
  return scores;
}

/** Each solution's steps in order, with their labels and scores. */
function solutionsOf(samples: readonly StepSample[], scores: readonly number[]) {
  const bySolution = new Map<string, { index: number; wrong: boolean; score: number }[]>();
  samples.forEach((s, i) => {
    const list = bySolution.get(s.solution) ?? [];
    list.push({ index: s.index, wrong: s.wrong, score: scores[i] });
    bySolution.set(s.solution, list);
  });
  return [...bySolution.values()].map((steps) => steps.sort((a, b) => a.index - b.index));
}

/** Whether the first step scored below `threshold` is the solution's first labelled wrong step (−1 both: none). */
const firstErrorHit = (steps: { wrong: boolean; score: number }[], threshold: number) =>
  steps.findIndex((s) => s.score < threshold) === steps.findIndex((s) => s.wrong);

/** Share of solutions whose first step scored below `threshold` is their first labelled wrong step. */
export function firstErrorAccuracy(
  samples: readonly StepSample[],
  scores: readonly number[],
  threshold: number,
): number {
  const solutions = solutionsOf(samples, scores);
  return solutions.length
    ? solutions.filter((s) => firstErrorHit(s, threshold)).length / solutions.length
    : 0;
}

/**
 * ProcessBench's F1 at `threshold`: the harmonic mean of the first-error accuracy on solutions with
 * a wrong step and the share of solutions without one where nothing is flagged. Unlike plain
 * first-error accuracy it cannot be won by flagging nothing when most solutions are clean.
 */
export function processBenchF1(
  samples: readonly StepSample[],
  scores: readonly number[],
  threshold: number,
): number {
  const solutions = solutionsOf(samples, scores);
  const erroneous = solutions.filter((s) => s.some((x) => x.wrong));
  const clean = solutions.filter((s) => !s.some((x) => x.wrong));
  if (!erroneous.length || !clean.length) return firstErrorAccuracy(samples, scores, threshold);
  const a = erroneous.filter((s) => firstErrorHit(s, threshold)).length / erroneous.length;
  const b = clean.filter((s) => firstErrorHit(s, threshold)).length / clean.length;
  return a + b > 0 ? (2 * a * b) / (a + b) : 0;
}

/** What the threshold is chosen to maximise, out of fold on the fit side. */
export type ThresholdCriterion = 'processbench-f1' | 'first-error';

/**
 * The threshold that maximises `criterion` over out-of-fold scores of the rows it is fitted on, with
 * the first-error accuracy and ProcessBench F1 there.
 */
export function bestThreshold(
  samples: readonly StepSample[],
  scores: readonly number[],
  criterion: ThresholdCriterion,
) {
  const candidates = [...new Set(scores)].sort((a, b) => a - b);
  // Midpoints between neighbouring scores, and one below all of them (flag nothing).
  const cuts = [
    0,
    ...candidates.map((c, i) => (i + 1 < candidates.length ? (c + candidates[i + 1]) / 2 : c + 1e-9)),
  ];
  const measure = criterion === 'first-error' ? firstErrorAccuracy : processBenchF1;
  let best = { threshold: 0.5, value: -1 };
  for (const threshold of cuts) {
    const value = measure(samples, scores, threshold);
    if (value > best.value) best = { threshold, value };
  }
  return {
    threshold: best.threshold,
    firstError: firstErrorAccuracy(samples, scores, best.threshold),
    f1: processBenchF1(samples, scores, best.threshold),
  };
}

/** P(step not wrong) under the head. */
export function stepHeadScore(head: StepHead, features: StepFeatures): number {
  return sigmoid(logOdds(head, rowOf(head.features, features)));
}

function logLoss(scores: readonly number[], samples: readonly StepSample[]): number {
  const eps = 1e-6;
  return (
    scores.reduce((a, p, i) => a - Math.log(samples[i].wrong ? Math.max(eps, 1 - p) : Math.max(eps, p)), 0) /
    Math.max(1, scores.length)
  );
}

/** Reads a step head's JSON, saying what is wrong with one that is not a step head. */
export function parseStepHead(value: unknown): { head: StepHead } | { error: string } {
  const v = value as Partial<StepHead> | null;
  if (!v || typeof v !== 'object' || v.schema !== STEP_HEAD_SCHEMA)
    return { error: `not a learned step head (its "schema" is not "${STEP_HEAD_SCHEMA}")` };
  if (v.version !== STEP_HEAD_VERSION)
    return {
      error: `step head version ${String(v.version)} is not supported (this Stepwise reads ${STEP_HEAD_VERSION})`,
    };
  const ok =
    v.kind === 'step-surprise' &&
    typeof v.model === 'string' &&
    Array.isArray(v.features) &&
    v.features.length > 0 &&
    v.features.every((f) => (STEP_FEATURES as readonly string[]).includes(f)) &&
    [v.mean, v.scale, v.weights].every(
      (a) => Array.isArray(a) && a.length === v.features!.length && a.every(Number.isFinite),
    ) &&
    Number.isFinite(v.bias) &&
    Number.isFinite(v.threshold) &&
    (v.thresholdBy === undefined || v.thresholdBy === 'processbench-f1' || v.thresholdBy === 'first-error') &&
    (v.heldOut === undefined || validHeldOut(v.heldOut));
  return ok ? { head: v as StepHead } : { error: 'its head is malformed' };
}

function validHeldOut(h: unknown): boolean {
  const v = h as Partial<StepHeadHeldOut> | null;
  const share = (x: unknown) => x === null || (typeof x === 'number' && x >= 0 && x <= 1);
  return (
    !!v &&
    typeof v === 'object' &&
    [v.problems, v.solutions, v.steps].every((n) => Number.isInteger(n) && (n as number) >= 0) &&
    share(v.stepAuroc) &&
    share(v.firstErrorAccuracy) &&
    (v.processBenchF1 === undefined || share(v.processBenchF1))
  );
}

/** Reads a step head file; a missing or malformed one is an error naming the file. */
export function loadStepHead(file: string): StepHead {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`Cannot read the step head ${file}: ${(e as Error).message}`, { cause: e });
  }
  const parsed = parseStepHead(value);
  if ('error' in parsed) throw new Error(`${file}: ${parsed.error}.`);
  return parsed.head;
}
