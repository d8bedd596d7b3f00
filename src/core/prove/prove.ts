import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import type { PlanSupport } from '../model/plan';
import { resolvePlanSupport } from '../model/planCapability';
import { ModelError, type ChatMessage, type ModelBackend } from '../model/types';
import type { LearnedScorer } from '../judgment/learnedScorer';
import { splitReferenceAnswer } from './answers';
import { evaluateCandidate, newCandidate, type EvaluationContext } from './evaluate';
import {
  judgeCandidates,
  scoreLearned,
  stopVerdict,
  type CalibratorChoice,
  type StopVerdict,
} from './judgeRound';
import type { ProveEventListener } from './events';
import { generateAnswers } from './generate';
import { loadPrompt, renderPrompt, type PromptTemplate } from './prompts';
import { rankCandidates } from './rank';
import {
  ProveOptionsSchema,
  PROVE_RUN_SCHEMA,
  PROVE_RUN_VERSION,
  type GenerationMode,
  type IterationRecord,
  type ProveRun,
} from './runSchema';
import type { StepScorer } from '../model/stepScorer';
import { VerifierStepScorer } from './stepScores';
import type { RubricScale } from './verify';

export type ProveOptionsInput = z.input<typeof ProveOptionsSchema>;

export interface ProveRequest {
  /** The statement; a last line `Answer: …` is taken out of it as the reference answer. */
  problem: string;
  /** The answer the final boxed answer is checked against (a dataset's); overrides an `Answer:` line. */
  referenceAnswer?: string | null;
  /** The proof document the problem came from, recorded in the run. */
  file?: string | null;
  options?: ProveOptionsInput;
  /** Cancels at any token; the run returned then has status "cancelled" and keeps what was done. */
  signal?: AbortSignal;
  onEvent?: ProveEventListener;
}

export interface ProveModels {
  generator: ModelBackend;
  /** Judges proofs and self-evaluations; the generator itself when absent. */
  verifier?: ModelBackend;
  /** Scores steps; a `VerifierStepScorer` on the verifier model when absent. */
  stepScorer?: StepScorer;
  /** Turns each candidate's signals into P(correct); without it, no judgment is recorded. */
  calibrator?: CalibratorChoice | null;
  /**
   * The learned scorer, where one is given: each candidate then gets one more scoring pass of its
   * proof under the generator, and `learnedScore` as a signal the calibrator may weigh.
   */
  learnedScorer?: LearnedScorer | null;
}

/** Options checked against the schema; the error names each bad option and the rule it breaks. */
export function resolveProveOptions(input: ProveOptionsInput = {}) {
  const result = ProveOptionsSchema.safeParse(input);
  if (!result.success) {
    const details = result.error.issues
      .map((i) => `${i.path.join('.') || 'options'}: ${i.message}`)
      .join('; ');
    throw new Error(`Invalid prove options: ${details}.`);
  }
  return result.data;
}

export function generationMode(support: PlanSupport): GenerationMode {
  return support.mode === 'none'
    ? { mode: 'free', planMode: null, fallbackReason: support.reason }
    : { mode: 'constrained', planMode: support.mode, fallbackReason: null };
}

/**
 * Prove and self-verify: generate a proof with its self-evaluation (N candidates as one batch),
 * judge each candidate (and give it a P(correct) where a calibrator is given), rank them, and —
 * until the chosen candidate's P(correct) reaches `stopProbability` (without a judgment: its
 * self-evaluation boxes 1), and never while it is cut at its token limit — ask for a refined proof that fixes the issues its self-evaluation names, up to
 * `maxIterations` rounds. Outputs are constrained by generation plans where the backend can run
 * them, and generated freely and parsed where it cannot (the run says which, and why). Never
 * throws for model trouble: a failed or cancelled run is returned with its status and every
 * finished round, so the caller can save and show it.
 */
export async function proveAndVerify(request: ProveRequest, models: ProveModels): Promise<ProveRun> {
  const options = resolveProveOptions(request.options);
  const stated = splitReferenceAnswer(request.problem.trim());
  const problem = stated.problem;
  const referenceAnswer = request.referenceAnswer?.trim() || stated.referenceAnswer;
  if (problem === '')
    throw new Error('The problem is empty: write the statement to prove under "## Problem".');
  const emit: ProveEventListener = (e) => request.onEvent?.(e);
  const { signal } = request;
  const verifier = models.verifier ?? models.generator;

  const prompts = {
    generator: loadPrompt('generator', options.promptDir),
    refine: loadPrompt('refine', options.promptDir),
    verifier: loadPrompt(options.rubric === 'olympiad' ? 'verifier-olympiad' : 'verifier', options.promptDir),
    metaVerifier: loadPrompt('meta-verifier', options.promptDir),
    stepJudge: loadPrompt('step-judge', options.promptDir),
  };
  // Ranking by PRM needs step scores even when they were not asked for; otherwise none are taken.
  const needsSteps = options.stepScores || options.rerankBy === 'prm';
  const stepScorer = needsSteps
    ? (models.stepScorer ?? new VerifierStepScorer(verifier, prompts.stepJudge))
    : null;
  const started = performance.now();
  const generatorSupport = await resolvePlanSupport(models.generator, options.constrained);
  const generation = {
    generator: generationMode(generatorSupport),
    verifier: generationMode(
      verifier === models.generator
        ? generatorSupport
        : await resolvePlanSupport(verifier, options.constrained),
    ),
  };
  const run: ProveRun = {
    schema: PROVE_RUN_SCHEMA,
    version: PROVE_RUN_VERSION,
    id: randomUUID(),
    kind: 'prove',
    createdAt: new Date().toISOString(),
    status: 'completed',
    stopReason: 'max-iterations',
    error: null,
    problem: { text: problem, file: request.file ?? null, referenceAnswer: referenceAnswer ?? null },
    options,
    generation,
    models: {
      generator: { ...models.generator.info },
      verifier: { ...verifier.info },
      stepScorer: stepScorer?.info ?? null,
    },
    prompts: Object.fromEntries(Object.entries(prompts).map(([k, p]) => [k, p.file])),
    iterations: [],
    final: null,
    totalMs: 0,
  };
  emit({ type: 'run-start', runId: run.id, problem, options });

  try {
    for (let index = 0; index < options.maxIterations; index++) {
      const previous = run.iterations[run.iterations.length - 1];
      const iteration = await runRound(index, previous, {
        problem,
        options,
        prompts,
        models,
        verifier,
        stepScorer,
        signal,
        emit,
        run,
      });
      if (!iteration) break;
      run.final = { iteration: iteration.index, candidate: iteration.chosen };
      const chosen = iteration.candidates[iteration.chosen];
      const verdict: StopVerdict = chosen ? stopVerdict(chosen, options.stopProbability) : { stop: false };
      if (verdict.stop) {
        run.stopReason = verdict.reason;
        break;
      }
      signal?.throwIfAborted();
    }
  } catch (err) {
    recordRunError(run, err, signal);
  }
  run.totalMs = performance.now() - started;
  emit({ type: 'done', run });
  return run;
}

interface RoundContext {
  problem: string;
  options: ReturnType<typeof resolveProveOptions>;
  prompts: Record<'generator' | 'refine' | 'verifier' | 'metaVerifier', PromptTemplate>;
  models: ProveModels;
  verifier: ModelBackend;
  stepScorer: StepScorer | null;
  signal?: AbortSignal;
  emit: ProveEventListener;
  /** The run being built: each round is pushed into it as soon as it is generated. */
  run: ProveRun;
}

/**
 * One generation round. The round is pushed into `run` before anything is awaited after the
 * generation, so a cancellation during judging still leaves its candidates in the run.
 */
async function runRound(
  index: number,
  previous: IterationRecord | undefined,
  ctx: RoundContext,
): Promise<IterationRecord | null> {
  const { options, emit, signal, run } = ctx;
  const source = previous?.candidates[previous.chosen];
  const prompt = source
    ? renderPrompt(ctx.prompts.refine, {
        problem: ctx.problem,
        proof: source.parsed.proof || '(no proof was written)',
        selfAnalysis: source.parsed.selfAnalysis || '(no self-evaluation was written)',
        selfScore: source.selfScoreDistribution?.chosen ?? 'missing',
      })
    : renderPrompt(ctx.prompts.generator, { problem: ctx.problem });

  emit({ type: 'phase', iteration: index, phase: 'generate', candidate: null });
  const started = performance.now();
  const { answers, timeToFirstTokenMs, aborted } = await generateAnswers({
    generator: ctx.models.generator,
    prompt: [{ role: 'user', content: prompt }],
    constrained: run.generation.generator.mode === 'constrained',
    candidates: options.candidates,
    maxTokens: options.maxTokens,
    selfEvalMaxTokens: options.selfEvalMaxTokens,
    finalAnswer: run.problem.referenceAnswer !== null,
    temperature: options.temperature,
    seed: options.seed === undefined ? undefined : options.seed + index,
    signal,
    onToken: (e) =>
      emit({
        type: 'token',
        iteration: index,
        phase: 'generate',
        candidate: e.sequence,
        sequence: e.sequence,
        text: e.text,
      }),
  });
  const generateMs = performance.now() - started;

  const iteration: IterationRecord = {
    index,
    kind: source ? 'refine' : 'initial',
    refinedFrom: source && previous ? { iteration: previous.index, candidate: source.index } : null,
    prompt,
    candidates: answers.map((a, i) => newCandidate(i, a, run.problem.referenceAnswer)),
    ranking: [],
    chosen: 0,
    generateMs,
    timeToFirstTokenMs,
    totalMs: generateMs,
  };
  const rank = () => {
    iteration.ranking = rankCandidates(iteration.candidates, options.rerankBy);
    iteration.chosen = iteration.ranking[0] ?? 0;
    iteration.totalMs = performance.now() - started;
  };
  rank();
  run.iterations.push(iteration);
  if (aborted || signal?.aborted) throw aborted ?? signal?.reason;

  const evaluation: EvaluationContext = {
    problem: ctx.problem,
    options,
    verifier: ctx.verifier,
    constrained: run.generation.verifier.mode === 'constrained',
    stepScorer: ctx.stepScorer,
    prompts: { verifier: ctx.prompts.verifier, metaVerifier: ctx.prompts.metaVerifier },
    scale: (ctx.prompts.verifier.meta.scale === 'olympiad' ? 'olympiad' : 'unit') as RubricScale,
    iteration: index,
    signal,
    emit,
  };
  try {
    const learned = ctx.models.learnedScorer;
    for (const candidate of iteration.candidates) {
      await evaluateCandidate(candidate, evaluation);
      if (learned) await scoreLearned(candidate, learned, ctx.models.generator, scoringPrompt(ctx), signal);
      emit({ type: 'candidate', iteration: index, candidate });
    }
  } finally {
    emit({ type: 'phase', iteration: index, phase: 'rank', candidate: null });
    judgeCandidates(iteration.candidates, ctx.models.calibrator ?? null, {
      generator: ctx.models.generator.info.name,
      verifier: (ctx.models.verifier ?? ctx.models.generator).info.name,
    });
    rank();
  }
  emit({ type: 'iteration', iteration });
  return iteration;
}

/** The prompt the learned scorer reads a proof after: the generator's, whatever the round. */
function scoringPrompt(ctx: RoundContext): ChatMessage[] {
  return [{ role: 'user', content: renderPrompt(ctx.prompts.generator, { problem: ctx.problem }) }];
}

/**
 * How a run that threw ended: cancelled when the caller asked for it (what it finished stays in
 * the document), otherwise failed with the error's message and hint.
 */
export function recordRunError(run: ProveRun, err: unknown, signal?: AbortSignal): void {
  if (isAbort(err, signal)) {
    run.status = 'cancelled';
    run.stopReason = 'cancelled';
    return;
  }
  const e = err as Error & { hint?: string; code?: unknown };
  run.status = 'failed';
  run.stopReason = 'failed';
  run.error = {
    message: e.message ?? String(err),
    ...(e.hint ? { hint: e.hint } : {}),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
  };
}

/** Whether an error is the cancellation the caller asked for rather than a failure. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  if (err instanceof ModelError) return err.code === 'aborted';
  return (err as { name?: string } | null)?.name === 'AbortError';
}
