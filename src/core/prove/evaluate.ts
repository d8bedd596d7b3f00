import { performance } from 'node:perf_hooks';
import type { ModelBackend } from '../model/types';
import { splitSteps } from '../steps/split';
import { answersEquivalent, finalAnswerOf } from './answers';
import { mostLikely, pointMass } from './distribution';
import type { ProveEventListener } from './events';
import type { GeneratedAnswer } from './generate';
import { OPENING_SENTENCE, parseProofOutput } from './parse';
import { renderPrompt, type PromptTemplate } from './prompts';
import { computeRewards } from './rewards';
import type { AnswerCheck, CandidateRecord, ProveOptions } from './runSchema';
import type { StepScorer } from '../model/stepScorer';
import { aggregateStepScores, clampStepProbability } from './stepScores';
import { meanScore, runJudge, type RubricScale } from './verify';

export interface EvaluationContext {
  problem: string;
  options: ProveOptions;
  verifier: ModelBackend;
  /** Whether the judges' verdicts run as plans on the verifier backend. */
  constrained: boolean;
  stepScorer: StepScorer | null;
  prompts: { verifier: PromptTemplate; metaVerifier: PromptTemplate };
  scale: RubricScale;
  iteration: number;
  signal?: AbortSignal;
  emit: ProveEventListener;
}

/**
 * A candidate as generated: parsed, not yet judged (its reward is 0 or unknown until it is). The
 * text is parsed the same way whichever way it was generated, so R_format means the same thing;
 * a constrained answer's self-score is its choice's distribution and `parsed.selfScore` holds the
 * expected value, a free answer's is the boxed number (all the mass on it).
 */
export function newCandidate(
  index: number,
  answer: GeneratedAnswer,
  referenceAnswer: string | null,
): CandidateRecord {
  const parsed = parseProofOutput(answer.text);
  const selfScoreDistribution =
    answer.selfScore ?? (parsed.selfScore === null ? null : pointMass(parsed.selfScore, 'unit'));
  if (answer.selfScore) parsed.selfScore = answer.selfScore.expected;
  return {
    index,
    raw: answer.text,
    finishReason: answer.finishReason,
    parsed,
    constrained: answer.constrained,
    selfScoreDistribution,
    answerCheck: referenceAnswer === null ? null : checkAnswer(parsed.proof, referenceAnswer),
    verifier: null,
    meta: null,
    stepScores: null,
    rewards: computeRewards({
      formatReward: parsed.formatReward,
      selfScore: parsed.selfScore,
      verifierScore: null,
      metaScore: null,
    }),
  };
}

export function checkAnswer(proof: string, reference: string): AnswerCheck {
  const answer = finalAnswerOf(proof);
  return { answer, reference, matches: answer !== null && answersEquivalent(answer, reference) };
}

/**
 * Whether a candidate's self-evaluation says it is done: its format was accepted, the score it
 * boxes is 1 and so is the most likely value of its distribution. A constrained choice can sample
 * a box other than its mode; a run once stopped on "self score 1" (the mode) while the evaluation
 * the user reads boxed 0. Requiring both keeps the stop reason true of the text and of what the
 * model believes. A rejected format is never "done", since the next round is what can fix it.
 */
export function isDone(c: CandidateRecord): boolean {
  const d = c.selfScoreDistribution;
  return c.parsed.formatReward === 1 && d !== null && d.chosen === '1' && mostLikely(d) === '1';
}

/**
 * The options of one judge call (verifier or meta-verifier) for a candidate: the run's judge
 * settings, and its tokens streamed as that phase's events. Prove and Check My Proof both judge
 * through it, so a proof is judged the same way whoever wrote it.
 */
export function judgeOptionsFor(at: {
  options: Pick<ProveOptions, 'verifierPasses' | 'verifierMaxTokens' | 'verifierTemperature' | 'seed'>;
  constrained: boolean;
  iteration: number;
  candidate: number;
  signal?: AbortSignal;
  emit: ProveEventListener;
}) {
  return (phase: 'verify' | 'meta-verify', scale: RubricScale, prompt: PromptTemplate) => ({
    passes: at.options.verifierPasses,
    scale,
    constrained: at.constrained,
    opening: prompt.meta.opening || OPENING_SENTENCE,
    maxTokens: at.options.verifierMaxTokens,
    temperature: at.options.verifierTemperature,
    seed: at.options.seed,
    signal: at.signal,
    onToken: (sequence: number, text: string) =>
      at.emit({ type: 'token', iteration: at.iteration, phase, candidate: at.candidate, sequence, text }),
  });
}

/**
 * Judges one parsed candidate: step scores, verifier passes (R_Y), meta-verification (R_meta)
 * and the rewards. Each part is written into `record` as soon as it is known, so that
 * a cancellation or an error part-way through leaves every finished part in the run document.
 */
export async function evaluateCandidate(record: CandidateRecord, ctx: EvaluationContext): Promise<void> {
  const { options, iteration, emit, signal } = ctx;
  const { proof, selfAnalysis } = record.parsed;
  const judgeOptions = judgeOptionsFor({
    options,
    constrained: ctx.constrained,
    iteration,
    candidate: record.index,
    signal,
    emit,
  });
  // Every score below is an expected value (see rewards.ts for how that relates to the formula).
  const updateRewards = () => {
    record.rewards = computeRewards(
      {
        formatReward: record.parsed.formatReward,
        selfScore: record.parsed.selfScore,
        verifierScore: record.verifier?.score ?? null,
        // With meta-verification off, the design's R_Z reduces to R_score (R_meta taken as 1).
        metaScore: options.metaVerify ? (record.meta?.score ?? null) : 1,
      },
      { alpha: options.alpha, beta: options.beta },
    );
  };
  updateRewards();
  if (proof === '') return; // nothing to judge; the format reward is already 0
  let started: number;

  // Step scores come first: they depend on no verdict, and meta-verification is then the last
  // request before a refinement, whose prompt can open as the meta-verifier's does (problem, proof,
  // self-evaluation) and so be read from a prompt cache instead of again.
  // Ranking by PRM needs step scores even when they were not asked for.
  if (ctx.stepScorer && (options.stepScores || options.rerankBy === 'prm')) {
    emit({ type: 'phase', iteration, phase: 'step-score', candidate: record.index });
    started = performance.now();
    const steps = splitSteps(proof);
    const scores = await ctx.stepScorer.scoreSteps(
      ctx.problem,
      steps.map((s) => s.text),
      { signal },
    );
    record.stepScores = {
      scorer: ctx.stepScorer.info,
      steps: steps.map((s, i) => ({
        index: s.index,
        text: s.text,
        start: s.start,
        end: s.end,
        hash: s.hash,
        score: clampStepProbability(scores[i]),
      })),
      solutionScore: aggregateStepScores(scores.map(clampStepProbability), options.stepAggregate),
      ms: performance.now() - started,
    };
  }

  emit({ type: 'phase', iteration, phase: 'verify', candidate: record.index });
  started = performance.now();
  const verifierPrompt = [
    { role: 'user' as const, content: renderPrompt(ctx.prompts.verifier, { problem: ctx.problem, proof }) },
  ];
  const passes = await runJudge(
    ctx.verifier,
    verifierPrompt,
    judgeOptions('verify', ctx.scale, ctx.prompts.verifier),
  );
  record.verifier = { passes, score: meanScore(passes), ms: performance.now() - started };
  updateRewards();
  // A backend may end a cancelled generation normally (finish reason "abort"): stop here too.
  signal?.throwIfAborted();

  if (options.metaVerify && selfAnalysis !== '') {
    emit({ type: 'phase', iteration, phase: 'meta-verify', candidate: record.index });
    started = performance.now();
    const metaPrompt = [
      {
        role: 'user' as const,
        content: renderPrompt(ctx.prompts.metaVerifier, { problem: ctx.problem, proof, selfAnalysis }),
      },
    ];
    const metaPasses = await runJudge(
      ctx.verifier,
      metaPrompt,
      judgeOptions('meta-verify', 'unit', ctx.prompts.metaVerifier),
    );
    record.meta = { passes: metaPasses, score: meanScore(metaPasses), ms: performance.now() - started };
    updateRewards();
    signal?.throwIfAborted();
  }
}
