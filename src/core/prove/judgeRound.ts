/**
 * P(correct) for the candidates of one round, and the rule that ends refinement with it. The
 * round is judged as a whole because answer agreement compares each candidate with the others.
 */
import type { Calibrator } from '../judgment/calibrator';
import { proofConfidence } from '../judgment/confidence';
import { learnedScore, type LearnedScorer } from '../judgment/learnedScorer';
import type { ChatMessage, ModelBackend } from '../model/types';
import { candidateFeatures, isTruncated } from '../judgment/features';
import { fittedOnOthers, judge, type JudgedModels } from '../judgment/judge';
import { finalAnswerOf } from './answers';
import { isDone } from './evaluate';
import type { CandidateRecord } from './runSchema';

export interface RoundCalibrator {
  calibrator: Calibrator;
  /** Named in every judgment (the file it was read from). */
  source: string;
}

/** One calibrator (named by the user), or the shipped ones to choose from by the run's models. */
export type CalibratorChoice = RoundCalibrator | readonly RoundCalibrator[];

/** The first calibrator fitted on these models, else the first given (the default). */
export function chooseCalibrator(
  choice: CalibratorChoice | null,
  models: JudgedModels,
): RoundCalibrator | null {
  if (!choice) return null;
  if (!Array.isArray(choice)) return choice as RoundCalibrator;
  const list = choice as readonly RoundCalibrator[];
  return (
    list.find((c) => c.calibrator.fittedOn && !fittedOnOthers(c.calibrator.fittedOn, models)) ??
    list[0] ??
    null
  );
}

/**
 * Writes each candidate's judgment (null where no model of the calibrator covers its signals),
 * by the calibrator fitted on `models` where one is given, and says when it was fitted on others.
 */
export function judgeCandidates(
  candidates: CandidateRecord[],
  choice: CalibratorChoice | null,
  models: JudgedModels,
): void {
  const calibrator = chooseCalibrator(choice, models);
  if (!calibrator) return;
  const features = candidateFeatures(
    candidates.map((c) => ({
      answer: finalAnswerOf(c.parsed.proof),
      selfScore: c.parsed.selfScore,
      verifierScore: c.verifier?.score ?? null,
      metaScore: c.meta?.score ?? null,
      stepScores: c.stepScores?.steps.map((s) => s.score) ?? null,
      finishReason: c.finishReason,
      learnedScore: c.learnedScore ?? null,
    })),
  );
  candidates.forEach((c, i) => {
    c.judgment = judge(calibrator.calibrator, features[i], calibrator.source, models);
  });
}

/**
 * The learned score of a candidate's proof, scored as the answer to the generator's prompt (as
 * the scorer was trained). A failed scoring pass leaves it null: the candidate is judged on the
 * other signals rather than the run failing for an optional one.
 */
export async function scoreLearned(
  candidate: CandidateRecord,
  scorer: LearnedScorer,
  generator: ModelBackend,
  prompt: ChatMessage[],
  signal?: AbortSignal,
): Promise<void> {
  try {
    candidate.learnedScore = learnedScore(
      scorer,
      await proofConfidence(generator, prompt, candidate.parsed.proof, signal),
    );
  } catch (err) {
    if (signal?.aborted) throw err;
    candidate.learnedScore = null;
  }
}

export type StopVerdict = { stop: true; reason: 'p-correct' | 'self-score-1' } | { stop: false };

/**
 * Whether the chosen candidate ends the refinement. A Solution cut at its token limit is never
 * done, whatever it scores: the next round is what can finish it. With a judgment, P(correct)
 * must reach `stopProbability`; without one (no calibrator, or none for its signals), the
 * self-evaluation's own boxed verdict must be 1.
 */
export function stopVerdict(chosen: CandidateRecord, stopProbability: number): StopVerdict {
  if (isTruncated(chosen.finishReason)) return { stop: false };
  if (chosen.judgment)
    return chosen.judgment.pCorrect >= stopProbability
      ? { stop: true, reason: 'p-correct' }
      : { stop: false };
  return isDone(chosen) ? { stop: true, reason: 'self-score-1' } : { stop: false };
}
