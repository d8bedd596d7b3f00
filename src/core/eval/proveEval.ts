/**
 * `stepwise eval prove`: Prove and self-verify on problems with known final answers (MATH-500).
 * Each problem gets one full Prove run — N candidates per round, judged by the verifier, scored
 * step by step, refined while the chosen candidate's self-score is below 1 — and every candidate
 * of every round is recorded with its boxed final answer (the generator prompt asks for one where
 * a problem asks for a value) checked against the reference, which Prove also receives so that the
 * run documents its answer checks. What the scoreboard computes from these records is in
 * proveSummary.ts.
 */
import { proveAndVerify, type ProveModels, type ProveOptionsInput } from '../prove/prove';
import type { CandidateRecord, IterationRecord, ProveRun } from '../prove/runSchema';
import { answersEquivalent, finalBoxedAnswer } from '../math/answers';
import type { MathProblem } from './datasets';
import { truncate } from '../text/truncate';

export interface CandidateOutcome {
  /** The last \boxed{} of the Solution section; null when there is none. */
  answer: string | null;
  correct: boolean;
  formatReward: 0 | 1;
  /** Why the format was rejected (empty when accepted), so a rejected constrained answer can be explained. */
  formatProblems?: string[];
  selfScore: number | null;
  verifierScore: number | null;
  /** The step scorer's solution score (PRM or verifier log-probabilities). */
  stepScore: number | null;
  /** The meta-verifier's expected score (R_meta); absent in journals written before it was kept. */
  metaScore?: number | null;
  /** The lowest step score of the proof; absent in journals written before it was kept. */
  weakestStep?: number | null;
  finishReason: CandidateRecord['finishReason'];
  /**
   * The Solution text, kept only under `--keep-texts` (it multiplies a journal's size), so signals
   * computed from the text itself, such as the learned scorer's, can be fitted after the run.
   */
  proof?: string;
  /** The learned scorer's score: from the run (`--learned-scorer`) or filled in by `stepwise judgment train`. */
  learnedScore?: number | null;
}

export interface ProveItemResult {
  id: string;
  reference: string;
  subject?: string;
  level?: number;
  status: ProveRun['status'];
  stopReason: ProveRun['stopReason'];
  error: ProveRun['error'];
  /** Per round: every candidate, and the one the run chose (by its `rerankBy`). */
  rounds: { kind: IterationRecord['kind']; chosen: number; candidates: CandidateOutcome[] }[];
  /** The run's answer: the chosen candidate of the last round. */
  final: { round: number; candidate: number; answer: string | null; correct: boolean } | null;
  stepScorer: ProveRun['models']['stepScorer'];
  /** How the generator's outputs were made: constrained by a generation plan, or free (and why). */
  generation?: { mode: 'constrained' | 'free'; fallbackReason: string | null };
  /** Where the run's time went: generation, verifier and meta-verifier passes, step scoring. */
  phaseMs?: { generate: number; verify: number; metaVerify: number; stepScores: number };
  ms: number;
}

export function candidateOutcome(c: CandidateRecord, reference: string, keepText = false): CandidateOutcome {
  const answer = finalBoxedAnswer(c.parsed.proof);
  return {
    answer,
    correct: answer !== null && answersEquivalent(answer, reference),
    formatReward: c.parsed.formatReward,
    formatProblems: c.parsed.problems,
    selfScore: c.parsed.selfScore,
    verifierScore: c.verifier?.score ?? null,
    stepScore: c.stepScores?.solutionScore ?? null,
    metaScore: c.meta?.score ?? null,
    weakestStep: c.stepScores?.steps.length ? Math.min(...c.stepScores.steps.map((s) => s.score)) : null,
    finishReason: c.finishReason,
    ...(keepText ? { proof: c.parsed.proof } : {}),
    ...(c.learnedScore !== undefined ? { learnedScore: c.learnedScore } : {}),
  };
}

/** The record of one finished run against its reference answer. */
export function proveItemResult(problem: MathProblem, run: ProveRun, keepTexts = false): ProveItemResult {
  const rounds = run.iterations.map((it) => ({
    kind: it.kind,
    chosen: it.chosen,
    candidates: it.candidates.map((c) => candidateOutcome(c, problem.answer, keepTexts)),
  }));
  const last = rounds[rounds.length - 1];
  const chosen = last?.candidates[last.chosen];
  return {
    id: problem.id,
    reference: problem.answer,
    subject: problem.subject,
    level: problem.level,
    status: run.status,
    stopReason: run.stopReason,
    error: run.error,
    rounds,
    final: chosen
      ? { round: rounds.length - 1, candidate: last.chosen, answer: chosen.answer, correct: chosen.correct }
      : null,
    stepScorer: run.models.stepScorer,
    generation: {
      mode: run.generation.generator.mode,
      fallbackReason: run.generation.generator.fallbackReason,
    },
    phaseMs: phaseTimes(run),
    ms: run.totalMs,
  };
}

function phaseTimes(run: ProveRun): NonNullable<ProveItemResult['phaseMs']> {
  const t = { generate: 0, verify: 0, metaVerify: 0, stepScores: 0 };
  for (const it of run.iterations) {
    t.generate += it.generateMs;
    for (const c of it.candidates) {
      t.verify += c.verifier?.ms ?? 0;
      t.metaVerify += c.meta?.ms ?? 0;
      t.stepScores += c.stepScores?.ms ?? 0;
    }
  }
  return t;
}

/**
 * Runs Prove on one problem. Each problem gets its own seed (base + 1000 · index) so that the
 * result of an item does not depend on which items ran before it — a resumed run then matches
 * an uninterrupted one. A run that produced nothing (the model failed at once) is an error, so
 * the item is retried next time instead of being scored as wrong.
 */
export async function evaluateMathProblem(
  problem: MathProblem,
  index: number,
  models: ProveModels,
  options: ProveOptionsInput & { seed: number },
  signal?: AbortSignal,
  keepTexts = false,
): Promise<ProveItemResult> {
  const run = await proveAndVerify(
    {
      problem: problem.problem,
      referenceAnswer: problem.answer,
      options: { ...options, seed: options.seed + 1000 * index },
      signal,
    },
    models,
  );
  if (run.status === 'cancelled') signal?.throwIfAborted();
  if (run.status === 'failed' && run.iterations.length === 0)
    throw Object.assign(new Error(run.error?.message ?? 'the Prove run failed'), { hint: run.error?.hint });
  return proveItemResult(problem, run, keepTexts);
}

export function describeProveItem(r: ProveItemResult): string {
  const f = r.final;
  if (!f) return `no answer (${r.status})`;
  return `${f.correct ? 'correct' : 'wrong'} (${f.answer === null ? 'no boxed answer' : `answer ${truncate(f.answer, 24)}`}, reference ${truncate(r.reference, 24)}), ${r.rounds.length} round(s)`;
}
