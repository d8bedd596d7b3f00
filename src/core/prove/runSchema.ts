import { z } from 'zod';
import { upgradeRun } from './runUpgrade';
import { DEFAULT_REWARD_WEIGHTS } from './rewards';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../model/lengths';
import { JudgmentSchema } from '../judgment/judgmentSchema';
import { ScoreDistributionSchema } from './scoreDistribution';

export { ScoreDistributionSchema, type ScoreDistribution } from './scoreDistribution';

/**
 * The run document of one "Prove and self-verify" run: what `stepwise prove FILE --json` prints and
 * what is saved under `<workspace>/.stepwise/runs/`. The labelling queue and the trainer read it,
 * so every change to its shape bumps `version`; older versions are upgraded on reading
 * (`runUpgrade.ts`), never rewritten on disk.
 *
 * Version 2: every score is a distribution (`ScoreDistribution`) and the number each score field
 * holds is its expected value; the run says how its outputs were generated (`generation`, and
 * `constrained` on every output); a problem may carry a reference answer that each candidate's
 * final answer is checked against (`answerCheck`); judges say when a verdict came without reasons.
 */
export const PROVE_RUN_SCHEMA = 'stepwise.prove-run';
export const PROVE_RUN_VERSION = 2;

const probability = z.number().min(0).max(1);
const nullableScore = probability.nullable();
const finishReason = z.enum(['stop', 'length', 'abort', 'eos']);

export const ProveOptionsSchema = z.object({
  maxIterations: z
    .int()
    .min(1)
    .max(16)
    .default(3)
    .describe('Most generation rounds (the first plus refinements).'),
  candidates: z
    .int()
    .min(1)
    .max(16)
    .default(1)
    .describe('Candidates per round, generated as one batch (best-of-N).'),
  rerankBy: z
    .enum(['p-correct', 'prm', 'verifier', 'self'])
    .default('p-correct')
    .describe(
      'What ranks the candidates of a round: P(correct) (the verifier where a candidate has no judgment), the PRM, the verifier or the self-score.',
    ),
  stopProbability: z
    .number()
    .min(0)
    .max(1)
    .default(0.8)
    .describe(
      "Refinement stops once the chosen candidate's P(correct) reaches this (without a judgment: once its self-evaluation boxes 1).",
    ),
  stepAggregate: z
    .enum(['product', 'min'])
    .default('product')
    .describe('How step probabilities make a solution score.'),
  stepScores: z
    .boolean()
    .default(true)
    .describe('Score every step of every candidate (PRM or verifier log-probabilities).'),
  verifierPasses: z.int().min(1).max(16).default(1).describe('Verifier passes (k) averaged into R_Y.'),
  rubric: z
    .enum(['unit', 'olympiad'])
    .default('unit')
    .describe('Verifier rubric: 0/0.5/1, or 0–7 points mapped to [0, 1].'),
  metaVerify: z
    .boolean()
    .default(true)
    .describe('Check the self-evaluation with a meta-verification pass (R_meta); off: R_meta = 1.'),
  maxTokens: z.int().min(16).default(DEFAULT_MAX_OUTPUT_TOKENS).describe('Most tokens per generator output.'),
  verifierMaxTokens: z
    .int()
    .min(16)
    .default(384)
    .describe('Most tokens per verifier or meta-verifier output.'),
  temperature: z.number().min(0).max(2).default(0.7).describe('Generator sampling temperature (0: greedy).'),
  verifierTemperature: z
    .number()
    .min(0)
    .max(2)
    .default(0.7)
    .describe('Verifier temperature when k > 1 (one pass is greedy).'),
  seed: z.int().optional().describe('Makes sampling repeatable.'),
  alpha: z.number().min(0).max(1).default(DEFAULT_REWARD_WEIGHTS.alpha).describe('Weight α of R_Y.'),
  beta: z.number().min(0).max(1).default(DEFAULT_REWARD_WEIGHTS.beta).describe('Weight β of R_Z.'),
  promptDir: z
    .string()
    .optional()
    .describe('Folder whose prompt files override the shipped prompts/prove/ ones.'),
  constrained: z
    .boolean()
    .default(true)
    .describe(
      'Constrain every output with a generation plan where the backend can (off: free generation and parsing, as training uses).',
    ),
  selfEvalMaxTokens: z
    .int()
    .min(16)
    .default(256)
    .describe('Most tokens of the self-evaluation analysis when outputs are constrained.'),
});
export type ProveOptions = z.infer<typeof ProveOptionsSchema>;
/** Prove's defaults as one object: the CLI and the benchmarks read theirs here, as the settings do. */
export const PROVE_DEFAULTS: ProveOptions = ProveOptionsSchema.parse({});

export const ModelInfoSchema = z.object({
  backend: z.enum(['onnx', 'openai']),
  name: z.string(),
  device: z.enum(['cpu', 'cuda', 'remote']),
  contextWindow: z.number(),
});

export const JudgePassSchema = z.object({
  raw: z.string(),
  finishReason,
  /** The number written in the box, on the rubric's own scale. */
  rawScore: z.number().nullable(),
  /** The expected score on [0, 1]; null when the verdict was unreadable (free generation only). */
  score: nullableScore,
  distribution: ScoreDistributionSchema.nullable(),
  /** Whether the verdict was a constrained choice after a bounded analysis. */
  constrained: z.boolean(),
  /** The verdict came without an analysis before it: a score, not a judgement anyone can check. */
  withoutReasons: z.boolean(),
  problems: z.array(z.string()),
});

export const JudgeResultSchema = z.object({
  passes: z.array(JudgePassSchema),
  /** Mean of the readable passes' expected scores. */
  score: nullableScore,
  ms: z.number(),
});

/** The candidate's final answer against the problem's reference answer. */
export const AnswerCheckSchema = z.object({
  /** The last `\boxed{}` of the proof; null when the proof boxes no answer. */
  answer: z.string().nullable(),
  reference: z.string(),
  /** False also when the proof boxes no answer. */
  matches: z.boolean(),
});
export type AnswerCheck = z.infer<typeof AnswerCheckSchema>;

export const ParsedOutputSchema = z.object({
  proof: z.string(),
  selfAnalysis: z.string(),
  /** The expected self-score (the boxed value itself for free generation). */
  selfScore: nullableScore,
  formatReward: z.union([z.literal(0), z.literal(1)]),
  problems: z.array(z.string()),
});

export const RewardsSchema = z.object({
  rFormat: z.union([z.literal(0), z.literal(1)]),
  rY: nullableScore,
  rScore: nullableScore,
  rMeta: nullableScore,
  rZ: nullableScore,
  r: nullableScore,
});

export const StepScoreSchema = z.object({
  index: z.int().min(0),
  text: z.string(),
  /** Offsets into the candidate's `parsed.proof`. */
  start: z.int().min(0),
  end: z.int().min(0),
  hash: z.string(),
  score: probability,
});

export const StepScoresSchema = z.object({
  scorer: z.object({ kind: z.enum(['prm', 'step-head', 'verifier-logprob']), name: z.string() }),
  steps: z.array(StepScoreSchema),
  solutionScore: nullableScore,
  ms: z.number(),
});

export const CandidateSchema = z.object({
  index: z.int().min(0),
  raw: z.string(),
  finishReason,
  parsed: ParsedOutputSchema,
  /** Whether the output was generated under a plan (both sections and the box by construction). */
  constrained: z.boolean(),
  selfScoreDistribution: ScoreDistributionSchema.nullable(),
  /** Null when the problem has no reference answer. */
  answerCheck: AnswerCheckSchema.nullable(),
  verifier: JudgeResultSchema.nullable(),
  meta: JudgeResultSchema.nullable(),
  rewards: RewardsSchema,
  stepScores: StepScoresSchema.nullable(),
  /**
   * P(correct) from the judging calibrator with the evidence for it; null when no model of the
   * calibrator covers the candidate's signals, absent in runs made without a calibrator.
   */
  judgment: JudgmentSchema.nullable().optional(),
  /** The learned scorer's score of the proof; absent in runs made without one (an opt-in). */
  learnedScore: z.number().min(0).max(1).nullable().optional(),
});
export type CandidateRecord = z.infer<typeof CandidateSchema>;

export const IterationSchema = z.object({
  index: z.int().min(0),
  /** `check`: the one round of a "Check My Proof" run, whose candidate is the person's own proof. */
  kind: z.enum(['initial', 'refine', 'check']),
  /** The candidate whose proof and self-evaluation this round refines. */
  refinedFrom: z.object({ iteration: z.int(), candidate: z.int() }).nullable(),
  prompt: z.string(),
  candidates: z.array(CandidateSchema),
  /** Candidate indexes, best first, by `options.rerankBy`. */
  ranking: z.array(z.int().min(0)),
  chosen: z.int().min(0),
  generateMs: z.number(),
  timeToFirstTokenMs: z.number(),
  totalMs: z.number(),
});
export type IterationRecord = z.infer<typeof IterationSchema>;

export const GenerationModeSchema = z.object({
  mode: z.enum(['constrained', 'free']),
  planMode: z.enum(['native', 'server-grammar', 'prefix-continuation']).nullable(),
  /** Why outputs were not constrained; null when they were. */
  fallbackReason: z.string().nullable(),
});
export type GenerationMode = z.infer<typeof GenerationModeSchema>;

export const ProveRunSchema = z.object({
  schema: z.literal(PROVE_RUN_SCHEMA),
  version: z.literal(PROVE_RUN_VERSION),
  id: z.string(),
  /**
   * `prove`: the model wrote the proofs; `check`: "Check My Proof" judged a proof a person wrote
   * (one round, one candidate, no self-evaluation, so no R_format, R_score or R).
   */
  kind: z.enum(['prove', 'check']).default('prove'),
  createdAt: z.string(),
  status: z.enum(['completed', 'cancelled', 'failed']),
  /** `p-correct`: the chosen candidate's P(correct) reached `options.stopProbability`. */
  stopReason: z.enum(['p-correct', 'self-score-1', 'max-iterations', 'cancelled', 'failed']),
  /** `code`: the error's kind when it had one (a ModelError's, e.g. `model-folder`), so the editor can offer the fix. */
  error: z
    .object({ message: z.string(), hint: z.string().optional(), code: z.string().optional() })
    .nullable(),
  problem: z.object({
    text: z.string(),
    file: z.string().nullable(),
    /** The answer the final boxed answer is checked against (a dataset's, or the document's `Answer:` line). */
    referenceAnswer: z.string().nullable(),
  }),
  options: ProveOptionsSchema,
  /**
   * How the generator's and the judges' outputs were generated: constrained by plans (and which
   * way the backend runs them), or free with the reason (the backend cannot run plans, or
   * constrained generation was turned off).
   */
  generation: z.object({ generator: GenerationModeSchema, verifier: GenerationModeSchema }),
  models: z.object({
    generator: ModelInfoSchema,
    verifier: ModelInfoSchema,
    /** Null when no step was scored (step scores off and no ranking by PRM). */
    stepScorer: z
      .object({ kind: z.enum(['prm', 'step-head', 'verifier-logprob']), name: z.string() })
      .nullable(),
  }),
  prompts: z.record(z.string(), z.string()),
  iterations: z.array(IterationSchema),
  /** The answer of the run: the chosen candidate of the last round. */
  final: z.object({ iteration: z.int(), candidate: z.int() }).nullable(),
  totalMs: z.number(),
});
export type ProveRun = z.infer<typeof ProveRunSchema>;

/**
 * Reads a saved run, saying in words what is wrong with one that does not match the schema. A run
 * of an older version is upgraded first, so runs saved before an upgrade stay readable.
 */
export function parseProveRun(value: unknown): { run: ProveRun } | { error: string } {
  const result = ProveRunSchema.safeParse(upgradeRun(value));
  return result.success ? { run: result.data } : { error: z.prettifyError(result.error) };
}

/** The run document as JSON Schema, for readers in other languages (the Python trainer). */
export function proveRunJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ProveRunSchema, { io: 'output' }) as Record<string, unknown>;
}
