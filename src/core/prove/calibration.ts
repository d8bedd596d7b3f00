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
  /** Candidates by how they were generated, to read the figures above with. */
  constrained: number;
  free: number;
}

/** Every candidate of every round of the runs, as samples of the three comparisons. */
export function calibrationReport(runs: readonly ProveRun[], binCount = DEFAULT_BINS): CalibrationReport {
  const selfVsAnswer: CalibrationSample[] = [];
  const verifierVsAnswer: CalibrationSample[] = [];
  const selfVsVerifier: CalibrationSample[] = [];
  let constrained = 0;
  let free = 0;
  for (const run of runs.filter(isDataRun)) {
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
      }
    }
  }
  return {
    selfVsAnswer: scoreCalibration(selfVsAnswer, binCount),
    verifierVsAnswer: scoreCalibration(verifierVsAnswer, binCount),
    selfVsVerifier: scoreCalibration(selfVsVerifier, binCount),
    constrained,
    free,
  };
}
