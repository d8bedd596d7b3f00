/**
 * `stepwise eval prm`: how well does a step scorer (a trained PRM, or the verifier model's "+"/"−"
 * log-probabilities) find the wrong steps that people labelled? Held-out labels come as Stepwise
 * label JSONL or PRM800K JSONL. Reported: step-level AUROC (score vs "not wrong"), precision,
 * recall and F1 of flagging wrong steps at a threshold, and ProcessBench-style first-error
 * accuracy — the first step scored below the threshold against the first step labelled −1, with
 * "no error" as a class of its own.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { fromPrm800k, labelledSolutions } from '../labels/formats';
import { LABEL_SCHEMA_VERSION, type LabelRecord } from '../labels/schema';
import { parseStoreText } from '../labels/store';
import type { StepScorer } from '../model/stepScorer';
import { DatasetError, MISSING_DATA_HINTS, type LineProblem } from './datasets';
import {
  calibration,
  f1,
  proportion,
  roc,
  type CalibrationSummary,
  type Proportion,
  type RocSummary,
} from '../math/stats';

export interface LabelledSteps {
  id: string;
  problem: string;
  /** Steps in order up to and including the first one labelled −1 (later labels say nothing more). */
  steps: { text: string; rating: -1 | 0 | 1 }[];
}

/** Index of the first step labelled or predicted wrong; −1 means "no error". */
export type FirstError = number;

export function readStepLabels(file: string): {
  solutions: LabelledSteps[];
  format: 'stepwise' | 'prm800k';
  problems: LineProblem[];
} {
  if (!fs.existsSync(file))
    throw new DatasetError(`There is no label file at ${file}.`, MISSING_DATA_HINTS.prm);
  let bytes = fs.readFileSync(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = zlib.gunzipSync(bytes);
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  const first = lines.find((l) => l.trim() !== '');
  let sample: Record<string, unknown> = {};
  try {
    sample = JSON.parse(first ?? '{}');
  } catch {
    // Reported below as an unknown format.
  }
  let records: LabelRecord[];
  let problems: LineProblem[];
  let format: 'stepwise' | 'prm800k';
  if ('label' in sample && 'question' in sample) {
    format = 'prm800k';
    const imported = fromPrm800k(lines);
    problems = imported.problems;
    const createdAt = new Date(0).toISOString();
    records = imported.labels.map((l, i) => ({
      schemaVersion: LABEL_SCHEMA_VERSION,
      id: `import-${i}`,
      createdAt,
      ...l,
    }));
  } else if ('schemaVersion' in sample && 'stepIndex' in sample) {
    format = 'stepwise';
    const parsed = parseStoreText(text);
    records = parsed.records;
    problems = parsed.corrupt;
  } else
    throw new DatasetError(
      `${file} is neither Stepwise labels nor PRM800K (its first line has neither "stepIndex" nor "label").`,
      'Export labels with `stepwise labels export` or pass a PRM800K phase1/phase2 JSONL file.',
    );
  const solutions: LabelledSteps[] = [];
  for (const s of labelledSolutions(records)) {
    const cut = s.steps.findIndex((x) => x.rating === -1);
    const steps = (cut >= 0 ? s.steps.slice(0, cut + 1) : s.steps).map((x) => ({
      text: x.text,
      rating: x.rating,
    }));
    if (s.problemText && steps.length) solutions.push({ id: s.solutionId, problem: s.problemText, steps });
  }
  if (!solutions.length)
    throw new DatasetError(
      `${file} holds no labelled solution with its problem text (${problems.length} bad line(s)).`,
      'Each solution needs its problem text and a label on its first step.',
    );
  return { solutions, format, problems };
}

export interface PrmItemResult {
  id: string;
  ratings: (-1 | 0 | 1)[];
  scores: number[];
  firstErrorLabel: FirstError;
  firstErrorPredicted: FirstError;
}

export function firstBelow(scores: readonly number[], threshold: number): FirstError {
  return scores.findIndex((s) => s < threshold);
}

export async function evaluateLabelledSolution(
  solution: LabelledSteps,
  scorer: StepScorer,
  threshold: number,
  signal?: AbortSignal,
): Promise<PrmItemResult> {
  const raw = await scorer.scoreSteps(
    solution.problem,
    solution.steps.map((s) => s.text),
    { signal },
  );
  // A scorer is untrusted like any model output: NaN or out-of-range values become the midpoint.
  const scores = solution.steps.map((_, i) => {
    const x = raw[i];
    return typeof x === 'number' && Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0.5;
  });
  return prmItemResult(solution, scores, threshold);
}

/** One labelled solution's result: its labels beside the scores, and where each puts the first error. */
export function prmItemResult(solution: LabelledSteps, scores: number[], threshold: number): PrmItemResult {
  const ratings = solution.steps.map((s) => s.rating);
  return {
    id: solution.id,
    ratings,
    scores,
    firstErrorLabel: ratings.indexOf(-1),
    firstErrorPredicted: firstBelow(scores, threshold),
  };
}

export interface PrmMetrics {
  solutions: number;
  steps: number;
  threshold: number;
  /** Step scores as P(step not wrong); neutral (0) steps count as not wrong, as in PRM training. */
  stepRoc: RocSummary;
  stepCalibration: CalibrationSummary;
  /** Flagging wrong steps (score < threshold) against the −1 labels. */
  errorDetection: {
    precision: number | null;
    recall: number | null;
    f1: number | null;
    tp: number;
    fp: number;
    fn: number;
  };
  firstError: {
    accuracy: Proportion;
    /** On solutions with a labelled error: the predicted first error is that step. */
    onErroneous: Proportion;
    /** On solutions without one: no step is flagged. */
    onCorrect: Proportion;
    /** ProcessBench's F1: harmonic mean of the two accuracies above. */
    f1: number | null;
  };
}

export function summarizePrm(items: readonly PrmItemResult[], threshold: number): PrmMetrics {
  const points = items.flatMap((it) =>
    it.scores.map((score, i) => ({ score, correct: it.ratings[i] !== -1 })),
  );
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const p of points) {
    const flagged = p.score < threshold;
    if (flagged && !p.correct) tp++;
    else if (flagged) fp++;
    else if (!p.correct) fn++;
  }
  const hit = (it: PrmItemResult) => it.firstErrorPredicted === it.firstErrorLabel;
  const erroneous = items.filter((it) => it.firstErrorLabel >= 0);
  const correct = items.filter((it) => it.firstErrorLabel < 0);
  const onErroneous = proportion(erroneous.map(hit));
  const onCorrect = proportion(correct.map(hit));
  const a = onErroneous.value;
  const b = onCorrect.value;
  return {
    solutions: items.length,
    steps: points.length,
    threshold,
    stepRoc: roc(points),
    stepCalibration: calibration(points),
    errorDetection: { ...f1(tp, fp, fn), tp, fp, fn },
    firstError: {
      accuracy: proportion(items.map(hit)),
      onErroneous,
      onCorrect,
      f1: a === null || b === null ? null : a + b > 0 ? (2 * a * b) / (a + b) : 0,
    },
  };
}

export function describePrmItem(r: PrmItemResult): string {
  const name = (i: FirstError) => (i < 0 ? 'no error' : `step ${i + 1}`);
  return `${r.scores.length} steps, first error ${name(r.firstErrorLabel)}, predicted ${name(r.firstErrorPredicted)}`;
}
