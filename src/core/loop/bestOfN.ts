/**
 * Best-of-N on the loop's held-out samples: the same N solutions of each problem are chosen from
 * by every selector (the new PRM, the generator's self-score, majority vote, the first sample, and
 * the PRM in use before the loop when there is one), so
 * the comparison is paired: a difference between two selectors is a difference on the same
 * candidates, and its interval comes from resampling problems (paired percentile bootstrap).
 */
import type { MathProblem } from '../eval/datasets';
import type { CandidateOutcome } from '../eval/proveEval';
import { argmax, majorityVote } from '../eval/proveSummary';
import { mulberry32, percentileInterval, proportion, type Proportion } from '../math/stats';
import type { StepScorer } from '../model/stepScorer';
import { aggregateStepScores, clampStepProbability } from '../prove/stepScores';
import { splitSteps } from '../steps/split';
import type { SampledSolution } from './solutions';

export type LoopSelection = 'single' | 'majority' | 'self' | 'stepScore' | 'oracle';

/** A held-out sample with the scores the selectors read. */
export interface ScoredSample {
  solutionId: string;
  answer: string | null;
  correct: boolean;
  selfScore: number | null;
  /** The PRM's solution score: the product of its step probabilities, as Prove ranks by. */
  prmScore: number | null;
  /** The same score by the PRM in use before the loop (`stepwise.prm.modelPath`), when there is one. */
  currentPrmScore?: number | null;
}

export interface PairedDifference {
  /** Accuracy of the first selector minus the second's, on the same problems. */
  difference: number;
  /** 95 % paired percentile-bootstrap interval over problems (seeded). */
  interval: { low: number; high: number } | null;
  /** Problems the first selector gets right and the second wrong, and the other way round. */
  onlyFirst: number;
  onlySecond: number;
}

export interface LoopBestOfN {
  problems: number;
  candidates: number;
  scorer: StepScorer['info'];
  /** `currentPrm`: picks by the PRM in use before the loop, when its scores were given. */
  selections: Record<LoopSelection, Proportion> & { currentPrm?: Proportion };
  differences: {
    prmVsSelf: PairedDifference;
    prmVsSingle: PairedDifference;
    prmVsMajority: PairedDifference;
    prmVsCurrent?: PairedDifference;
  };
}

/** Scores every held-out sample's steps with `scorer`, one solution at a time. */
export async function scoreHeldOutSamples(
  scorer: StepScorer,
  problems: readonly MathProblem[],
  samples: readonly SampledSolution[][],
  options: { signal?: AbortSignal; onProblem?: (done: number, total: number) => void } = {},
): Promise<ScoredSample[][]> {
  const scored: ScoredSample[][] = [];
  for (const [p, problem] of problems.entries()) {
    const row: ScoredSample[] = [];
    for (const s of samples[p] ?? []) {
      options.signal?.throwIfAborted();
      const steps = splitSteps(s.text).map((st) => st.text);
      const scores = steps.length
        ? await scorer.scoreSteps(problem.problem, steps, { signal: options.signal })
        : [];
      row.push({
        solutionId: s.solutionId,
        answer: s.finalAnswer,
        correct: s.correct,
        selfScore: s.selfScore,
        prmScore: aggregateStepScores(scores.map(clampStepProbability), 'product'),
      });
    }
    scored.push(row);
    options.onProblem?.(p + 1, problems.length);
  }
  return scored;
}

function asOutcome(s: ScoredSample): CandidateOutcome {
  return {
    answer: s.answer,
    correct: s.correct,
    formatReward: 1,
    formatProblems: [],
    selfScore: s.selfScore,
    verifierScore: null,
    stepScore: s.prmScore,
    finishReason: 'stop',
  };
}

export function summarizeBestOfN(
  scored: readonly ScoredSample[][],
  scorer: StepScorer['info'],
  seed = 1,
): LoopBestOfN {
  const rows = scored.map((row) => row.map(asOutcome));
  const picks: Record<LoopSelection, boolean[]> = {
    single: rows.map((c) => c[0]?.correct ?? false),
    majority: rows.map((c) => majorityVote(c)?.correct ?? false),
    self: rows.map((c) => argmax(c, 'selfScore')?.correct ?? false),
    stepScore: rows.map((c) => argmax(c, 'stepScore')?.correct ?? false),
    oracle: rows.map((c) => c.some((x) => x.correct)),
  };
  const selections: LoopBestOfN['selections'] = Object.fromEntries(
    Object.entries(picks).map(([name, flags]) => [name, proportion(flags)]),
  ) as Record<LoopSelection, Proportion>;
  const differences: LoopBestOfN['differences'] = {
    prmVsSelf: pairedDifference(picks.stepScore, picks.self, seed),
    prmVsSingle: pairedDifference(picks.stepScore, picks.single, seed),
    prmVsMajority: pairedDifference(picks.stepScore, picks.majority, seed),
  };
  if (scored.some((row) => row.some((s) => s.currentPrmScore !== undefined))) {
    const current = scored.map(
      (row) =>
        argmax(
          row.map((s) => ({ ...asOutcome(s), stepScore: s.currentPrmScore ?? null })),
          'stepScore',
        )?.correct ?? false,
    );
    selections.currentPrm = proportion(current);
    differences.prmVsCurrent = pairedDifference(picks.stepScore, current, seed);
  }
  return {
    problems: scored.length,
    candidates: Math.max(0, ...scored.map((r) => r.length)),
    scorer,
    selections,
    differences,
  };
}

/** Accuracy of `a` minus `b` on the same problems, with a paired bootstrap interval. */
export function pairedDifference(
  a: readonly boolean[],
  b: readonly boolean[],
  seed = 1,
  resamples = 2000,
): PairedDifference {
  const n = Math.min(a.length, b.length);
  const diffs = Array.from({ length: n }, (_, i) => Number(a[i]) - Number(b[i]));
  const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  if (n === 0) return { difference: 0, interval: null, onlyFirst: 0, onlySecond: 0 };
  const random = mulberry32(seed);
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += diffs[Math.floor(random() * n)];
    means.push(sum / n);
  }
  return {
    difference: meanOf(diffs),
    interval: percentileInterval(means),
    onlyFirst: diffs.filter((d) => d > 0).length,
    onlySecond: diffs.filter((d) => d < 0).length,
  };
}
