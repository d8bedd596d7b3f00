import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { resolvePlanSupport } from '../model/planCapability';
import type { ModelBackend } from '../model/types';
import type { StepScorer } from '../model/stepScorer';
import { parseProofDocument } from '../steps/document';
import { splitSteps } from '../steps/split';
import { splitReferenceAnswer } from './answers';
import { checkAnswer, judgeOptionsFor } from './evaluate';
import type { ProveEventListener } from './events';
import { judgeCandidates, type CalibratorChoice } from './judgeRound';
import { loadPrompt, renderPrompt, type PromptTemplate } from './prompts';
import { generationMode, recordRunError, resolveProveOptions, type ProveOptionsInput } from './prove';
import {
  PROVE_RUN_SCHEMA,
  PROVE_RUN_VERSION,
  type CandidateRecord,
  type IterationRecord,
  type ProveRun,
} from './runSchema';
import { aggregateStepScores, clampStepProbability, VerifierStepScorer } from './stepScores';
import { meanScore, runJudge, type RubricScale } from './verify';

export interface CheckRequest {
  /** The problem statement; a last line `Answer: …` is taken out as the reference answer. */
  problem: string;
  /** The person's own proof (the `## Solution` section), judged as written. */
  proof: string;
  file?: string | null;
  options?: ProveOptionsInput;
  signal?: AbortSignal;
  onEvent?: ProveEventListener;
}

export interface CheckModels {
  verifier: ModelBackend;
  /** Scores steps; a `VerifierStepScorer` on the verifier model when absent. */
  stepScorer?: StepScorer;
  /** Turns the scores into P(correct), as for a Prove candidate; no judgment without one. */
  calibrator?: CalibratorChoice | null;
}

/**
 * The problem and proof of a proof document, with the reason when it cannot be checked. The proof
 * is the solution's steps one per paragraph, so that the run's steps are the document's steps (same
 * index, same hash) and a label given in the panel is a label on the document's step.
 */
export function proofToCheck(text: string): { problem: string; proof: string } | { error: string } {
  const doc = parseProofDocument(text);
  if (!doc.problem)
    return { error: 'This document has no problem to check against: write it under "## Problem".' };
  if (!doc.solution || doc.steps.length === 0)
    return {
      error:
        'This document has no proof to check: write your proof under "## Solution" (one step per line or paragraph).',
    };
  return { problem: doc.problem, proof: doc.steps.map((s) => s.text).join('\n\n') };
}

/**
 * "Check My Proof": judges a proof a person wrote, without generating one. The steps are scored
 * (PRM or verifier log-probabilities), the verifier grades the proof and names its issues, and the
 * meta-verifier checks that those issues are real, so the person knows how far to trust them. The
 * result is a run of kind `check` with one round and one candidate, saved and labelled like any
 * other. Never throws for model trouble: a failed or cancelled check is returned with its status
 * and every finished part.
 */
export async function checkProof(request: CheckRequest, models: CheckModels): Promise<ProveRun> {
  const options = resolveProveOptions({ ...request.options, maxIterations: 1, candidates: 1 });
  const stated = splitReferenceAnswer(request.problem.trim());
  const problem = stated.problem;
  const proof = request.proof.trim();
  if (problem === '') throw new Error('The problem is empty: write the statement under "## Problem".');
  if (proof === '') throw new Error('The proof is empty: write your proof under "## Solution".');
  const emit: ProveEventListener = (e) => request.onEvent?.(e);
  const { signal } = request;
  const prompts = {
    verifier: loadPrompt(options.rubric === 'olympiad' ? 'verifier-olympiad' : 'verifier', options.promptDir),
    metaVerifier: loadPrompt('meta-verifier-check', options.promptDir),
    stepJudge: loadPrompt('step-judge', options.promptDir),
  };
  const stepScorer = options.stepScores
    ? (models.stepScorer ?? new VerifierStepScorer(models.verifier, prompts.stepJudge))
    : null;
  const started = performance.now();
  const verifierMode = generationMode(await resolvePlanSupport(models.verifier, options.constrained));
  const referenceAnswer = stated.referenceAnswer ?? null;
  const candidate: CandidateRecord = {
    index: 0,
    raw: proof,
    finishReason: 'stop',
    parsed: { proof, selfAnalysis: '', selfScore: null, formatReward: 0, problems: [] },
    constrained: false,
    selfScoreDistribution: null,
    answerCheck: referenceAnswer === null ? null : checkAnswer(proof, referenceAnswer),
    verifier: null,
    meta: null,
    stepScores: null,
    // A person's proof has no self-evaluation, so only the verifier's and meta-verifier's scores apply.
    rewards: { rFormat: 0, rY: null, rScore: null, rMeta: null, rZ: null, r: null },
  };
  const iteration: IterationRecord = {
    index: 0,
    kind: 'check',
    refinedFrom: null,
    prompt: '',
    candidates: [candidate],
    ranking: [0],
    chosen: 0,
    generateMs: 0,
    timeToFirstTokenMs: 0,
    totalMs: 0,
  };
  const run: ProveRun = {
    schema: PROVE_RUN_SCHEMA,
    version: PROVE_RUN_VERSION,
    id: randomUUID(),
    kind: 'check',
    createdAt: new Date().toISOString(),
    status: 'completed',
    stopReason: 'max-iterations',
    error: null,
    problem: { text: problem, file: request.file ?? null, referenceAnswer },
    options,
    generation: { generator: verifierMode, verifier: verifierMode },
    models: {
      generator: { ...models.verifier.info },
      verifier: { ...models.verifier.info },
      stepScorer: stepScorer?.info ?? null,
    },
    prompts: Object.fromEntries(Object.entries(prompts).map(([k, p]) => [k, p.file])),
    iterations: [iteration],
    final: { iteration: 0, candidate: 0 },
    totalMs: 0,
  };
  emit({ type: 'run-start', runId: run.id, problem, options });
  try {
    await judgeProof(candidate, {
      problem,
      options,
      verifier: models.verifier,
      constrained: verifierMode.mode === 'constrained',
      stepScorer,
      prompts,
      signal,
      emit,
    });
    // P(correct) from the same calibrator and signals as a Prove candidate's (no self-score here).
    judgeCandidates([candidate], models.calibrator ?? null, { verifier: models.verifier.info.name });
    emit({ type: 'candidate', iteration: 0, candidate });
  } catch (err) {
    recordRunError(run, err, signal);
  }
  run.totalMs = performance.now() - started;
  iteration.totalMs = run.totalMs;
  emit({ type: 'iteration', iteration });
  emit({ type: 'done', run });
  return run;
}

interface JudgeContext {
  problem: string;
  options: ReturnType<typeof resolveProveOptions>;
  verifier: ModelBackend;
  constrained: boolean;
  stepScorer: StepScorer | null;
  prompts: { verifier: PromptTemplate; metaVerifier: PromptTemplate };
  signal?: AbortSignal;
  emit: ProveEventListener;
}

/** Steps, verdict, then the check of the verdict; each part is written as soon as it is known. */
async function judgeProof(record: CandidateRecord, ctx: JudgeContext): Promise<void> {
  const { options, emit, signal } = ctx;
  const proof = record.parsed.proof;
  const judgeOptions = judgeOptionsFor({
    options,
    constrained: ctx.constrained,
    iteration: 0,
    candidate: 0,
    signal,
    emit,
  });
  let started: number;
  if (ctx.stepScorer) {
    emit({ type: 'phase', iteration: 0, phase: 'step-score', candidate: 0 });
    started = performance.now();
    const steps = splitSteps(proof);
    const scores = (
      await ctx.stepScorer.scoreSteps(
        ctx.problem,
        steps.map((s) => s.text),
        { signal },
      )
    ).map(clampStepProbability);
    record.stepScores = {
      scorer: ctx.stepScorer.info,
      steps: steps.map((s, i) => ({ ...s, score: scores[i] ?? 0.5 })),
      solutionScore: aggregateStepScores(scores, options.stepAggregate),
      ms: performance.now() - started,
    };
    signal?.throwIfAborted();
  }

  emit({ type: 'phase', iteration: 0, phase: 'verify', candidate: 0 });
  started = performance.now();
  const scale: RubricScale = ctx.prompts.verifier.meta.scale === 'olympiad' ? 'olympiad' : 'unit';
  const verifierPrompt = renderPrompt(ctx.prompts.verifier, { problem: ctx.problem, proof });
  const passes = await runJudge(
    ctx.verifier,
    [{ role: 'user', content: verifierPrompt }],
    judgeOptions('verify', scale, ctx.prompts.verifier),
  );
  record.verifier = { passes, score: meanScore(passes), ms: performance.now() - started };
  record.rewards = { ...record.rewards, rY: record.verifier.score };
  signal?.throwIfAborted();

  // The meta-verifier checks the first pass's analysis: the issues the panel lists.
  const analysis = passes[0]?.raw.trim() ?? '';
  if (!options.metaVerify || analysis === '') return;
  emit({ type: 'phase', iteration: 0, phase: 'meta-verify', candidate: 0 });
  started = performance.now();
  const metaPrompt = renderPrompt(ctx.prompts.metaVerifier, {
    problem: ctx.problem,
    proof,
    selfAnalysis: analysis,
  });
  const metaPasses = await runJudge(
    ctx.verifier,
    [{ role: 'user', content: metaPrompt }],
    judgeOptions('meta-verify', 'unit', ctx.prompts.metaVerifier),
  );
  record.meta = { passes: metaPasses, score: meanScore(metaPasses), ms: performance.now() - started };
  record.rewards = { ...record.rewards, rMeta: record.meta.score };
  signal?.throwIfAborted();
}
