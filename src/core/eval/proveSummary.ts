/**
 * The Prove scoreboard from per-problem records: final-answer accuracy, format, self-score vs
 * verifier agreement, calibration of each score against correctness, accuracy after each
 * refinement round, and best-of-N selection. Proportions carry 95 % Wilson intervals; AUROC a
 * 95 % percentile-bootstrap interval (1000 resamples, seeded).
 */
import type { Calibrator, FittedOn } from '../judgment/calibrator';
import { summarizeJudgment, type JudgmentMetrics } from './proveJudgment';
import { majorityVote } from './majorityVote';
import { splitOf } from '../judgment/split';

export { majorityVote };
import type { CandidateOutcome, ProveItemResult } from './proveEval';
import {
  calibration,
  mean,
  proportion,
  roc,
  type CalibrationSummary,
  type Proportion,
  type RocSummary,
  type ScoredOutcome,
} from '../math/stats';

export type ScoreName = 'selfScore' | 'verifierScore' | 'stepScore';
export type SelectionName = 'single' | 'majority' | 'verifier' | 'self' | 'stepScore' | 'oracle';

export interface ProveMetrics {
  problems: number;
  /** The run's final answer (chosen candidate of its last round) matches the reference. */
  accuracy: Proportion;
  format: {
    /** Candidates whose output follows the protocol exactly (R_format = 1). */
    candidates: Proportion;
    /** Candidates whose Solution ends in a boxed answer. */
    boxedAnswer: Proportion;
  };
  /** Candidates with both scores: how often the two agree once both are rounded to 0, ½ or 1. */
  selfVsVerifier: { pairs: number; agreement: Proportion; meanAbsoluteDifference: number | null };
  /** Each score read as P(answer correct), over every scored candidate of every round. */
  calibration: Record<ScoreName, CalibrationSummary & { roc: RocSummary }>;
  /** Accuracy of the chosen answer after round k (runs that stopped earlier keep their answer). */
  perIteration: RoundFigures[];
  /** The same on the held-out problems only (the split P(correct) is reported on). */
  perIterationHeldOut: RoundFigures[];
  /** Best-of-N over the first round's N candidates. */
  bestOfN: { candidates: number; selections: Record<SelectionName, Proportion> };
  meanRounds: number | null;
  /** Problems whose candidates were generated under a plan (both sections and the score guaranteed). */
  constrained: Proportion;
  /** Mean seconds per problem in each phase of Prove (items journaled before this was recorded are left out). */
  phaseSeconds: {
    generate: number | null;
    verify: number | null;
    metaVerify: number | null;
    stepScores: number | null;
  };
  /** P(correct) and each signal alone on held-out problems; best-of-N by P(correct). */
  judgment: JudgmentMetrics;
}

export interface RoundFigures {
  round: number;
  accuracy: Proportion;
  stillRefining: number;
  /**
   * What this round did to the runs that ran it (null for round 1, the first proof): of those
   * that came into it with a wrong answer, how many it fixed; of those with a right one, how many
   * it broke.
   */
  change: { refined: number; fixed: Proportion; broke: Proportion } | null;
}

const roundTo = (x: number) => Math.round(x * 2) / 2;

/** Accuracy after each round, and what each refinement round fixed and broke. */
export function roundFigures(items: readonly ProveItemResult[]): RoundFigures[] {
  const maxRounds = Math.max(0, ...items.map((it) => it.rounds.length));
  return Array.from({ length: maxRounds }, (_, k) => {
    const ran = items.filter((it) => it.rounds.length > k);
    const before = (it: ProveItemResult) => chosenAfter(it, k - 1)?.correct ?? false;
    const after = (it: ProveItemResult) => chosenAfter(it, k)?.correct ?? false;
    const cameWrong = ran.filter((it) => !before(it));
    const cameRight = ran.filter(before);
    return {
      round: k + 1,
      accuracy: proportion(items.map(after)),
      stillRefining: items.filter((it) => it.rounds.length > k + 1).length,
      change:
        k === 0
          ? null
          : {
              refined: ran.length,
              fixed: proportion(cameWrong.map(after)),
              broke: proportion(cameRight.map((it) => !after(it))),
            },
    };
  });
}

/** `models`: the generator and verifier of the run, named by a calibrator fitted on it. */
export function summarizeProve(
  items: readonly ProveItemResult[],
  calibrator?: { calibrator: Calibrator; file: string },
  models?: FittedOn,
): ProveMetrics {
  const all = items.flatMap((it) => it.rounds.flatMap((r) => r.candidates));
  const pairs = all.filter((c) => c.selfScore !== null && c.verifierScore !== null);
  const scored = (name: ScoreName): ScoredOutcome[] =>
    all.filter((c) => c[name] !== null).map((c) => ({ score: c[name] as number, correct: c.correct }));
  const calibrationOf = (name: ScoreName) => {
    const points = scored(name);
    return { ...calibration(points), roc: roc(points) };
  };
  const perIteration = roundFigures(items);
  const firstRounds = items.map((it) => it.rounds[0]?.candidates ?? []);
  const n = Math.max(0, ...firstRounds.map((c) => c.length));
  const select = (pick: (c: CandidateOutcome[]) => CandidateOutcome | undefined) =>
    proportion(firstRounds.map((c) => pick(c)?.correct ?? false));
  // A score no candidate has (step scores turned off) selects nothing: "not measured", not 0 %.
  const selectBy = (name: ScoreName) =>
    firstRounds.some((c) => c.some((x) => x[name] !== null))
      ? select((c) => argmax(c, name))
      : proportion([]);
  return {
    problems: items.length,
    accuracy: proportion(items.map((it) => it.final?.correct ?? false)),
    format: {
      candidates: proportion(all.map((c) => c.formatReward === 1)),
      boxedAnswer: proportion(all.map((c) => c.answer !== null)),
    },
    selfVsVerifier: {
      pairs: pairs.length,
      agreement: proportion(pairs.map((c) => roundTo(c.selfScore!) === roundTo(c.verifierScore!))),
      meanAbsoluteDifference: mean(pairs.map((c) => Math.abs(c.selfScore! - c.verifierScore!))),
    },
    calibration: {
      selfScore: calibrationOf('selfScore'),
      verifierScore: calibrationOf('verifierScore'),
      stepScore: calibrationOf('stepScore'),
    },
    perIteration,
    perIterationHeldOut: roundFigures(items.filter((it) => splitOf(it.id) === 'held-out')),
    bestOfN: {
      candidates: n,
      selections: {
        single: select((c) => c[0]),
        majority: select(majorityVote),
        verifier: selectBy('verifierScore'),
        self: selectBy('selfScore'),
        stepScore: selectBy('stepScore'),
        oracle: proportion(firstRounds.map((c) => c.some((x) => x.correct))),
      },
    },
    meanRounds: mean(items.map((it) => it.rounds.length)),
    constrained: proportion(
      items.filter((it) => it.generation).map((it) => it.generation!.mode === 'constrained'),
    ),
    phaseSeconds: phaseMeans(items),
    judgment: summarizeJudgment(items, calibrator, models),
  };
}

function phaseMeans(items: readonly ProveItemResult[]): ProveMetrics['phaseSeconds'] {
  const timed = items.flatMap((it) => (it.phaseMs ? [it.phaseMs] : []));
  const of = (k: keyof (typeof timed)[number]) => mean(timed.map((t) => t[k] / 1000));
  return {
    generate: of('generate'),
    verify: of('verify'),
    metaVerify: of('metaVerify'),
    stepScores: of('stepScores'),
  };
}

function chosenAfter(item: ProveItemResult, k: number): CandidateOutcome | undefined {
  const round = item.rounds[Math.min(k, item.rounds.length - 1)];
  return round?.candidates[round.chosen];
}

/** The highest-scored candidate; ties go to the earliest, candidates without the score never win. */
export function argmax(candidates: CandidateOutcome[], name: ScoreName): CandidateOutcome | undefined {
  let best: CandidateOutcome | undefined;
  for (const c of candidates) {
    const s = c[name];
    if (s !== null && (best === undefined || s > (best[name] as number))) best = c;
  }
  return best;
}
