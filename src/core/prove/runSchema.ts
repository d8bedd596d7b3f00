import { z } from 'zod';

/**
 * The run document of one "Prove and self-verify" run: what `stepwise prove FILE --json` prints and
 * what is saved under `<workspace>/.stepwise/runs/`. The labelling queue and the trainer read it,
 * so every change to its shape bumps `version`.
 */
export const PROVE_RUN_SCHEMA = 'stepwise.prove-run';
export const PROVE_RUN_VERSION = 1;

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
    .enum(['prm', 'verifier', 'self'])
    .default('verifier')
    .describe('What ranks the candidates of a round.'),
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
  maxTokens: z.int().min(16).default(512).describe('Most tokens per generator output.'),
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
  alpha: z.number().min(0).max(1).default(0.76).describe('Weight α of R_Y.'),
  beta: z.number().min(0).max(1).default(0.24).describe('Weight β of R_Z.'),
  promptDir: z
    .string()
    .optional()
    .describe('Folder whose prompt files override the shipped prompts/prove/ ones.'),
});
export type ProveOptions = z.infer<typeof ProveOptionsSchema>;

export const ModelInfoSchema = z.object({
  backend: z.enum(['onnx', 'openai']),
  name: z.string(),
  device: z.enum(['cpu', 'cuda', 'remote']),
  contextWindow: z.number(),
});

export const JudgePassSchema = z.object({
  raw: z.string(),
  finishReason,
  rawScore: z.number().nullable(),
  score: nullableScore,
  problems: z.array(z.string()),
});

export const JudgeResultSchema = z.object({
  passes: z.array(JudgePassSchema),
  /** Mean of the readable pass scores. */
  score: nullableScore,
  ms: z.number(),
});

export const ParsedOutputSchema = z.object({
  proof: z.string(),
  selfAnalysis: z.string(),
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
  scorer: z.object({ kind: z.enum(['prm', 'verifier-logprob']), name: z.string() }),
  steps: z.array(StepScoreSchema),
  solutionScore: nullableScore,
  ms: z.number(),
});

export const CandidateSchema = z.object({
  index: z.int().min(0),
  raw: z.string(),
  finishReason,
  parsed: ParsedOutputSchema,
  verifier: JudgeResultSchema.nullable(),
  meta: JudgeResultSchema.nullable(),
  rewards: RewardsSchema,
  stepScores: StepScoresSchema.nullable(),
});
export type CandidateRecord = z.infer<typeof CandidateSchema>;

export const IterationSchema = z.object({
  index: z.int().min(0),
  kind: z.enum(['initial', 'refine']),
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

export const ProveRunSchema = z.object({
  schema: z.literal(PROVE_RUN_SCHEMA),
  version: z.literal(PROVE_RUN_VERSION),
  id: z.string(),
  createdAt: z.string(),
  status: z.enum(['completed', 'cancelled', 'failed']),
  stopReason: z.enum(['self-score-1', 'max-iterations', 'cancelled', 'failed']),
  error: z.object({ message: z.string(), hint: z.string().optional() }).nullable(),
  problem: z.object({ text: z.string(), file: z.string().nullable() }),
  options: ProveOptionsSchema,
  models: z.object({
    generator: ModelInfoSchema,
    verifier: ModelInfoSchema,
    stepScorer: z.object({ kind: z.enum(['prm', 'verifier-logprob']), name: z.string() }).nullable(),
  }),
  prompts: z.record(z.string(), z.string()),
  iterations: z.array(IterationSchema),
  /** The answer of the run: the chosen candidate of the last round. */
  final: z.object({ iteration: z.int(), candidate: z.int() }).nullable(),
  totalMs: z.number(),
});
export type ProveRun = z.infer<typeof ProveRunSchema>;

/** Reads a saved run, saying in words what is wrong with one that does not match the schema. */
export function parseProveRun(value: unknown): { run: ProveRun } | { error: string } {
  const result = ProveRunSchema.safeParse(value);
  return result.success ? { run: result.data } : { error: z.prettifyError(result.error) };
}

/** The run document as JSON Schema, for readers in other languages (the Python trainer). */
export function proveRunJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ProveRunSchema, { io: 'output' }) as Record<string, unknown>;
}
