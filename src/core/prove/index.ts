/** "Prove and self-verify": the editor-independent core used by the CLI and the extension's panel. */
export {
  proveAndVerify,
  resolveProveOptions,
  isAbort,
  type ProveRequest,
  type ProveModels,
  type ProveOptionsInput,
} from './prove';
export type { ProveEvent, ProveEventListener, ProvePhase, StreamingPhase } from './events';
export {
  parseProofOutput,
  stripThinking,
  OPENING_SENTENCE,
  CLOSING_SENTENCE,
  SELF_SCORES,
  type ParsedProofOutput,
} from './parse';
export {
  computeRewards,
  DEFAULT_REWARD_WEIGHTS,
  type Rewards,
  type RewardInputs,
  type RewardWeights,
} from './rewards';
export {
  parseJudgment,
  olympiadToUnit,
  runJudge,
  meanScore,
  type Judgment,
  type JudgePass,
  type RubricScale,
} from './verify';
export {
  VerifierStepScorer,
  aggregateStepScores,
  judgmentProbability,
  type StepScorer,
  type StepAggregate,
} from './stepScores';
export { OnnxPrmScorer, type PrmScorerOptions } from './prmScorer';
export { rankCandidates, type RerankBy } from './rank';
export {
  auroc,
  calibrationReport,
  expectedCalibrationError,
  reliabilityBins,
  scoreCalibration,
  type CalibrationReport,
  type CalibrationSample,
  type ReliabilityBin,
  type ScoreCalibration,
} from './calibration';
export { answersEquivalent, finalAnswerOf, splitReferenceAnswer } from './answers';
export { readScore, olympiadToUnit as pointsToUnit, type ScoreReading, type ScoreScale } from './score';
export { loadPrompt, renderPrompt, defaultPromptDir, type PromptName, type PromptTemplate } from './prompts';
export { saveRun, loadRuns, runsDir, runFileName, problemSlug } from './runStore';
export { problemAt, problemFromDocument } from '../steps/document';
export {
  ProveRunSchema,
  ProveOptionsSchema,
  parseProveRun,
  proveRunJsonSchema,
  PROVE_RUN_SCHEMA,
  PROVE_RUN_VERSION,
  type ProveRun,
  type ProveOptions,
  type IterationRecord,
  type CandidateRecord,
  type ScoreDistribution,
  type AnswerCheck,
  type GenerationMode,
} from './runSchema';
