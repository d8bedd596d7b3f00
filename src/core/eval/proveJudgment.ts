/**
 * How well each judging signal, alone and combined into P(correct), tells right candidates from
 * wrong ones on problems never used to fit anything. Problems are split by a stable hash of their
 * id (judgment/split.ts); the calibrator is fitted on the fit side (or read from a file) and every
 * figure here is computed on the held-out side. Best-of-N compares picking by P(correct) with
 * majority vote and the self-score pick, with paired bootstrap intervals of the differences.
 */
import {
  fitCalibrator,
  type Calibrator,
  type FittedOn,
  type LabelledCandidate,
} from '../judgment/calibrator';
import { fittedOnOthers } from '../judgment/judge';
import type { JournalHeader } from './journal';
import { candidateFeatures, FEATURE_NAMES, type FeatureName, type Features } from '../judgment/features';
import { judge } from '../judgment/judge';
import { splitOf } from '../judgment/split';
import type { CandidateOutcome, ProveItemResult } from './proveEval';
import { majorityVote } from './majorityVote';
import {
  calibration,
  eceIfCalibrated,
  pairedBootstrapInterval,
  proportion,
  roc,
  type Proportion,
  type ScoredOutcome,
} from '../math/stats';

export type SignalName = FeatureName | 'pCorrect';
export type PickName = 'pCorrect' | 'majority' | 'self' | 'verifier' | 'single';

export interface SignalFigures {
  count: number;
  auroc: number | null;
  interval: { low: number; high: number } | null;
  /** The signal read as P(correct) (agreement and the scores are in [0, 1]). */
  ece: number | null;
  /**
   * P(correct) only: the ECE a perfectly calibrated P would show on the same candidates (mean and
   * 95th percentile of draws), the floor below which a measured ECE is noise of the sample's size.
   */
  eceIfCalibrated?: { mean: number; high: number } | null;
}

export interface JudgmentMetrics {
  split: {
    rule: string;
    fit: { problems: number; candidates: number };
    heldOut: { problems: number; candidates: number; positives: number };
  };
  /**
   * Where the calibrator came from: fitted here on the fit side, or a file given; the models it
   * was fitted on, and whether the candidates judged here came from others.
   */
  calibrator: { source: string; models: number; maps: string[]; fittedOn?: FittedOn; otherModels?: boolean };
  /** Held-out candidates that a model of the calibrator judged (the rest lack its signals). */
  judged: Proportion;
  signals: Record<SignalName, SignalFigures>;
  /** Held-out problems, first round: accuracy of each pick and the paired differences. */
  bestOfN: {
    problems: number;
    candidates: number;
    passAtN: Proportion;
    picks: Record<PickName, Proportion>;
    /** P(correct) pick minus the other pick: mean over problems and its 95 % paired bootstrap interval. */
    differences: Record<
      Exclude<PickName, 'pCorrect'>,
      { mean: number | null; low: number | null; high: number | null }
    >;
  };
  /** The calibrator fitted on the fit side (null when one was given), so it can be saved and shipped. */
  fitted: Calibrator | null;
}

interface Judged {
  item: string;
  round: number;
  outcome: CandidateOutcome;
  features: Features;
  pCorrect: number | null;
}

/** Signals of every candidate, one round of one problem at a time (agreement is within a round). */
export function labelledCandidates(
  items: readonly ProveItemResult[],
): (LabelledCandidate & { round: number; outcome: CandidateOutcome })[] {
  return items.flatMap((it) =>
    it.rounds.flatMap((r, round) => {
      const features = candidateFeatures(
        r.candidates.map((c) => ({
          answer: c.answer,
          selfScore: c.selfScore,
          verifierScore: c.verifierScore,
          metaScore: c.metaScore ?? null,
          stepScores: c.weakestStep === undefined || c.weakestStep === null ? null : [c.weakestStep],
          finishReason: c.finishReason,
          learnedScore: c.learnedScore ?? null,
        })),
      );
      return r.candidates.map((c, i) => ({
        problem: it.id,
        round,
        outcome: c,
        features: features[i],
        correct: c.correct,
      }));
    }),
  );
}

/**
 * The generator and verifier a prove journal ran with (its fingerprint records both), or null
 * when the journals ran with different ones: a calibrator fitted on a mix names no models.
 */
export function journalModels(headers: readonly (JournalHeader | null)[]): FittedOn | null {
  const named = headers.map((h) => {
    const f = h?.fingerprint ?? {};
    return typeof f.model === 'string' && typeof f.verifier === 'string'
      ? { generator: f.model, verifier: f.verifier }
      : null;
  });
  const first = named[0];
  if (!first || named.some((m) => !m || m.generator !== first.generator || m.verifier !== first.verifier))
    return null;
  return first;
}

/**
 * `models`: the models the items ran with; a calibrator fitted here names them. `hashSplit`: judge
 * a given calibrator on the hash split's held-out side only, the problems a calibrator fitted on
 * these items would be judged on, so the two compare on the same problems.
 */
export function summarizeJudgment(
  items: readonly ProveItemResult[],
  given?: { calibrator: Calibrator; file: string },
  models?: FittedOn | null,
  options: { hashSplit?: boolean } = {},
): JudgmentMetrics {
  const all = labelledCandidates(items);
  const split = options.hashSplit
    ? hashSplitFor(
        given?.calibrator,
        items.map((it) => it.id),
      )
    : heldOutRule(given?.calibrator);
  const fitSide = all.filter((c) => !split.isHeldOut(c.problem));
  const heldItems = items.filter((it) => split.isHeldOut(it.id));
  const fitProblems = [...new Set(fitSide.map((c) => c.problem))].sort();
  const fitted = given
    ? null
    : fitCalibrator(fitSide, {
        source: { split: 'fit', problems: fitProblems.length, candidates: fitSide.length, fitProblems },
        fittedOn: models ?? undefined,
      });
  const calibrator = given?.calibrator ?? fitted!;
  const judged: Judged[] = all
    .filter((c) => split.isHeldOut(c.problem))
    .map((c) => ({
      item: c.problem,
      round: c.round,
      outcome: c.outcome,
      features: c.features,
      pCorrect: judge(calibrator, c.features)?.pCorrect ?? null,
    }));
  const figures = (points: ScoredOutcome[]): SignalFigures => {
    const r = roc(points);
    return { count: points.length, auroc: r.auroc, interval: r.interval, ece: calibration(points).ece };
  };
  const points = (read: (j: Judged) => number | null): ScoredOutcome[] =>
    judged.flatMap((j) => (read(j) === null ? [] : [{ score: read(j)!, correct: j.outcome.correct }]));
  const signal = (read: (j: Judged) => number | null) => figures(points(read));
  const pCorrectPoints = points((j) => j.pCorrect);
  const signals = Object.fromEntries([
    ['pCorrect', { ...figures(pCorrectPoints), eceIfCalibrated: eceIfCalibrated(pCorrectPoints) }],
    ...FEATURE_NAMES.map((f) => [f, signal((j) => j.features[f])]),
  ]) as Record<SignalName, SignalFigures>;
  return {
    split: {
      rule: split.rule,
      fit: { problems: fitProblems.length, candidates: fitSide.length },
      heldOut: {
        problems: heldItems.length,
        candidates: judged.length,
        positives: judged.filter((j) => j.outcome.correct).length,
      },
    },
    calibrator: {
      source: given ? given.file : 'fitted on the fit side of this run',
      models: calibrator.models.length,
      maps: [...new Set(calibrator.models.map((m) => m.map.kind))],
      ...(calibrator.fittedOn ? { fittedOn: calibrator.fittedOn } : {}),
      ...(given && models ? { otherModels: fittedOnOthers(given.calibrator.fittedOn, models) } : {}),
    },
    judged: proportion(judged.map((j) => j.pCorrect !== null)),
    signals,
    bestOfN: bestOfN(judged, heldItems),
    fitted,
  };
}

/**
 * The hash split, refused when the given calibrator was fitted on one of these problems that the
 * split holds out: its figures there would not be held out.
 */
function hashSplitFor(
  given: Calibrator | undefined,
  problems: readonly string[],
): ReturnType<typeof heldOutRule> {
  const listed = given?.source.fitProblems;
  const seen = new Set(Array.isArray(listed) ? listed.filter((p) => typeof p === 'string') : []);
  const leaked = problems.find((p) => seen.has(p) && splitOf(p) === 'held-out');
  if (leaked)
    throw new Error(
      `the calibrator was fitted on ${leaked}, a held-out problem of the hash split: its figures there would not be held out`,
    );
  return HASH_SPLIT;
}

const HASH_SPLIT = {
  rule: 'problems split by an FNV-1a hash of their id: even → fit, odd → held-out; every figure here is on held-out problems',
  isHeldOut: (problem: string) => splitOf(problem) === 'held-out',
};

/**
 * Which problems a figure may be read on. A calibrator fitted here is fitted on the even side of
 * the hash split and judged on the odd side. A given calibrator whose file lists the problems it was
 * fitted on is judged on every other problem, so a slice it never saw counts in full; one without
 * that list falls back to the hash split.
 */
export function heldOutRule(given?: Calibrator): { rule: string; isHeldOut: (problem: string) => boolean } {
  const listed = given?.source.fitProblems;
  if (Array.isArray(listed) && listed.every((p) => typeof p === 'string')) {
    const seen = new Set<string>(listed);
    return {
      rule: `every problem the given calibrator was not fitted on (its file lists the ${seen.size} it was); every figure here is on them`,
      isHeldOut: (problem) => !seen.has(problem),
    };
  }
  return HASH_SPLIT;
}

function bestOfN(
  judged: readonly Judged[],
  heldItems: readonly ProveItemResult[],
): JudgmentMetrics['bestOfN'] {
  const firstRounds = heldItems.map((it) => judged.filter((j) => j.item === it.id && j.round === 0));
  // Ties go to the next key, as Prove's own ranking does (P(correct), then verifier, then self),
  // so a calibrator that gives every candidate the same P picks what the verifier would.
  const by =
    (...keys: ((j: Judged) => number | null)[]) =>
    (c: Judged[]) =>
      [...c]
        .filter((j) => keys[0](j) !== null)
        .sort((a, b) => {
          for (const key of keys) {
            const d = (key(b) ?? -1) - (key(a) ?? -1);
            if (d !== 0) return d;
          }
          return 0;
        })[0];
  const verifierOf = (j: Judged) => j.outcome.verifierScore;
  const selfOf = (j: Judged) => j.outcome.selfScore;
  const pickers: Record<PickName, (c: Judged[]) => Judged | undefined> = {
    pCorrect: by((j) => j.pCorrect, verifierOf, selfOf),
    majority: (c) => {
      const o = majorityVote(c.map((j) => j.outcome));
      return c.find((j) => j.outcome === o);
    },
    self: by(selfOf),
    verifier: by(verifierOf),
    single: (c) => c[0],
  };
  const right = Object.fromEntries(
    Object.entries(pickers).map(([k, pick]) => [
      k,
      firstRounds.map((c) => pick(c)?.outcome.correct ?? false),
    ]),
  ) as Record<PickName, boolean[]>;
  const differences = Object.fromEntries(
    (['majority', 'self', 'verifier', 'single'] as const).map((k) => [
      k,
      pairedDifference(right.pCorrect, right[k]),
    ]),
  ) as JudgmentMetrics['bestOfN']['differences'];
  return {
    problems: firstRounds.length,
    candidates: Math.max(0, ...firstRounds.map((c) => c.length)),
    passAtN: proportion(firstRounds.map((c) => c.some((j) => j.outcome.correct))),
    picks: Object.fromEntries(Object.entries(right).map(([k, v]) => [k, proportion(v)])) as Record<
      PickName,
      Proportion
    >,
    differences,
  };
}

/** Mean of a − b over problems and its 95 % percentile bootstrap interval (problems resampled, seeded). */
export function pairedDifference(a: readonly boolean[], b: readonly boolean[], resamples = 2000, seed = 1) {
  const n = a.length;
  if (n === 0) return { mean: null, low: null, high: null };
  const d = a.map((x, i) => Number(x) - Number(b[i]));
  const meanOf = (s: readonly number[]) => s.reduce((x, y) => x + y, 0) / s.length;
  const { low, high } = pairedBootstrapInterval(d, meanOf, resamples, seed)!;
  return { mean: meanOf(d), low, high };
}
