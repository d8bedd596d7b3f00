/**
 * How well Prove's scores predict correctness, from saved runs: the self-score and the verifier
 * score against answer correctness and against each other. The CLI's `stepwise calibration` and
 * the Calibration panel both show what `calibrationReport` returns; the maths is src/core/math.
 *
 * An outcome is whether the candidate's final answer matched the reference answer (1 or 0), or,
 * for problems without one, the verifier's expected score as a soft label.
 */
import {
  DEFAULT_BINS,
  scoreCalibration,
  type CalibrationSample,
  type ScoreCalibration,
} from '../math/calibration';
import { isDataRun } from '../runs/dataRun';
import type { ProveRun } from './runSchema';

export {
  DEFAULT_BINS,
  auroc,
  expectedCalibrationError,
  reliabilityBins,
  scoreCalibration,
  type CalibrationSample,
  type ReliabilityBin,
  type ScoreCalibration,
} from '../math/calibration';

export interface CalibrationReport {
  /** Expected self-score against answer correctness (candidates of problems with a reference answer). */
  selfVsAnswer: ScoreCalibration;
  /** Expected verifier score against answer correctness. */
  verifierVsAnswer: ScoreCalibration;
  /** Expected self-score against the expected verifier score (every judged candidate). */
  selfVsVerifier: ScoreCalibration;
  /**
   * The calibrated P(correct) each candidate's judgment recorded, against answer correctness: is P
   * calibrated on this person's own problems, under the calibrator their runs used?
   */
  pCorrectVsAnswer: ScoreCalibration;
  /** Candidates by how they were generated, to read the figures above with. */
  constrained: number;
  free: number;
  /** Every generator model of the runs read, with its number of runs: the choices of `model`. */
  models: { name: string; runs: number }[];
  /** The generator the figures are restricted to; null for the runs of every model together. */
  model: string | null;
}

export interface CalibrationOptions {
  bins?: number;
  /**
   * Only the runs of this generator. Scores of different models are different scales: pooled,
   * a well-calibrated model and a poorly calibrated one average into a figure true of neither.
   */
  model?: string | null;
}

/** Every candidate of every round of the runs (of one generator, or all), as samples of the four comparisons. */
export function calibrationReport(
  runs: readonly ProveRun[],
  options: CalibrationOptions = {},
): CalibrationReport {
  const binCount = options.bins ?? DEFAULT_BINS;
  const model = options.model ?? null;
  const dataRuns = runs.filter(isDataRun);
  const counts = new Map<string, number>();
  for (const run of dataRuns)
    counts.set(run.models.generator.name, (counts.get(run.models.generator.name) ?? 0) + 1);
  const selfVsAnswer: CalibrationSample[] = [];
  const verifierVsAnswer: CalibrationSample[] = [];
  const selfVsVerifier: CalibrationSample[] = [];
  const pCorrectVsAnswer: CalibrationSample[] = [];
  let constrained = 0;
  let free = 0;
  for (const run of dataRuns.filter((r) => model === null || r.models.generator.name === model)) {
    for (const iteration of run.iterations) {
      for (const c of iteration.candidates) {
        if (c.constrained) constrained++;
        else free++;
        const self = c.parsed.selfScore;
        const verifier = c.verifier?.score ?? null;
        const correct = c.answerCheck ? Number(c.answerCheck.matches) : null;
        if (self !== null && correct !== null) selfVsAnswer.push({ confidence: self, outcome: correct });
        if (verifier !== null && correct !== null)
          verifierVsAnswer.push({ confidence: verifier, outcome: correct });
        if (self !== null && verifier !== null) selfVsVerifier.push({ confidence: self, outcome: verifier });
        const p = c.judgment?.pCorrect ?? null;
        if (p !== null && correct !== null) pCorrectVsAnswer.push({ confidence: p, outcome: correct });
      }
    }
  }
  return {
    selfVsAnswer: scoreCalibration(selfVsAnswer, binCount),
    verifierVsAnswer: scoreCalibration(verifierVsAnswer, binCount),
    selfVsVerifier: scoreCalibration(selfVsVerifier, binCount),
    pCorrectVsAnswer: scoreCalibration(pCorrectVsAnswer, binCount),
    constrained,
    free,
    models: [...counts].map(([name, n]) => ({ name, runs: n })).sort((a, b) => b.runs - a.runs),
    model,
  };
}
