/**
 * Reliability of one self-generated question (seed 001), from repeated judging:
 *
 * - R_cons = 1 − Var(J(q, a_i)) / Var_max: one minus the variance of the judge's score of the same
 *   answer, averaged over the answers, in units of the largest variance a score in [0, 1] can have
 *   (0.25: half the judgments 0, half 1). Taken raw, 1 − Var never falls below 0.75 on this scale,
 *   so the design's threshold of 0.8 would reject only judges close to a coin flip between the
 *   ends; in these units 0.8 asks for a standard deviation of at most 0.22. A judgment is a distribution over 0–10, so J is
 *   the mixture of the k judgments and its variance is, by the law of total variance, the mean
 *   spread within the judgments plus the variance of their expected scores. Scores read from free
 *   text have no spread, which leaves the old population variance of the repeated scores.
 * - R_sep = E[J(q, a_strong)] − E[J(q, a_weak)]: mean score of answers from the strong sampling
 *   regimes minus that of the weak ones.
 * - R_stab = Pr(repeated pairwise judgments agree): for each answer pair judged m times (both
 *   orders), the probability that two of its judgments name the same winner, averaged over the
 *   pairs of judgments and then over answer pairs. A constrained verdict is P(first is better)
 *   (its P(A) when shown first, its P(B) when shown second), and two verdicts agree with
 *   probability p·q + (1 − p)(1 − q); for verdicts read from text this is the share of agreeing
 *   pairs [C(c,2) + C(m−c,2)] / C(m,2).
 * - R_G = f(R_cons, R_sep, R_stab), by default a weighted sum.
 *
 * Degenerate cases return a value with a note rather than NaN: one judge pass measures no
 * variance, no weak (or strong) regime gives no separation (null), one pairwise judgment gives no
 * agreement to measure.
 */

export type RegimeStrength = 'strong' | 'weak';

export interface JudgedAnswer {
  id: string;
  regime: string;
  strength: RegimeStrength;
  /** Repeated judge scores (expected values) in [0, 1]; unreadable judgments are left out before this point. */
  scores: number[];
  /** The variance within each judgment's distribution, index by index with `scores` (absent: 0). */
  spreads?: number[];
}

/** One pairwise judgment, already mapped back to answer ids (position bias undone). */
export interface PairJudgment {
  first: string;
  second: string;
  /** The answer the judge preferred, or null for a tie / unparseable verdict. */
  winner: string | null;
  /** Whether `first` was shown in position A. */
  order: 'ab' | 'ba';
  /** P(first is better) of a constrained verdict; absent for verdicts read from text. */
  pFirst?: number | null;
}

export interface Reliability {
  rCons: number;
  rSep: number | null;
  rStab: number;
  notes: string[];
}

export function variance(xs: number[]): number {
  if (xs.length < 2) return 0;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/** Variance of the mixture of an answer's judgments: mean spread within + variance of the means. */
export function judgmentVariance(a: JudgedAnswer): number {
  const within = a.spreads?.length ? mean(a.spreads) : 0;
  return within + variance(a.scores);
}

/** The largest variance of a score in [0, 1]: half the mass at 0, half at 1. R_cons is 1 − Var in these units. */
export const MAX_SCORE_VARIANCE = 0.25;

export function scoreConsistency(answers: JudgedAnswer[]): { value: number; note?: string } {
  const judged = answers.filter((a) => a.scores.length > 0);
  if (!judged.length) return { value: 0, note: 'No answer received a valid judge score.' };
  const value = Math.max(0, 1 - mean(judged.map(judgmentVariance)) / MAX_SCORE_VARIANCE);
  const single = judged.every((a) => a.scores.length < 2);
  const spread = judged.some((a) => a.spreads?.some((x) => x > 0));
  if (!single) return { value };
  return spread
    ? { value, note: 'One judge pass per answer: R_cons measures the spread of each judgment only.' }
    : {
        value,
        note: 'One judge pass per answer: score consistency is not measured (R_cons = 1 by definition).',
      };
}

export function separation(answers: JudgedAnswer[]): { value: number | null; note?: string } {
  const strong = answers.filter((a) => a.strength === 'strong').flatMap((a) => a.scores);
  const weak = answers.filter((a) => a.strength === 'weak').flatMap((a) => a.scores);
  if (!weak.length)
    return { value: null, note: 'No judged answer from a weak regime: separation cannot be measured.' };
  if (!strong.length)
    return { value: null, note: 'No judged answer from a strong regime: separation cannot be measured.' };
  return { value: mean(strong) - mean(weak) };
}

/** Share of agreeing pairs among the m judgments of one answer pair: [C(c,2) + C(m−c,2)] / C(m,2). */
export function agreementRate(winners: (string | null)[]): number | null {
  const m = winners.length;
  if (m < 2) return null;
  const counts = new Map<string, number>();
  for (const w of winners) counts.set(w ?? '∅', (counts.get(w ?? '∅') ?? 0) + 1);
  let agreeing = 0;
  for (const c of counts.values()) agreeing += (c * (c - 1)) / 2;
  return agreeing / ((m * (m - 1)) / 2);
}

/**
 * What one judgment says about its pair, in the pair's own order (its answer ids sorted, since the
 * judgments of one pair may name either answer `first`): P(lower id wins), P(other wins), P(none).
 */
function verdictDistribution(j: PairJudgment): [number, number, number] {
  const firstIsLow = j.first <= j.second;
  let pFirst: number;
  if (typeof j.pFirst === 'number') pFirst = j.pFirst;
  else if (j.winner === null) return [0, 0, 1];
  else pFirst = j.winner === j.first ? 1 : 0;
  return firstIsLow ? [pFirst, 1 - pFirst, 0] : [1 - pFirst, pFirst, 0];
}

/** Probability that two judgments of the same pair agree, averaged over every pair of judgments. */
export function verdictAgreement(judgments: PairJudgment[]): number | null {
  const m = judgments.length;
  if (m < 2) return null;
  const ds = judgments.map(verdictDistribution);
  let sum = 0;
  for (let i = 0; i < m; i++)
    for (let k = i + 1; k < m; k++) sum += ds[i][0] * ds[k][0] + ds[i][1] * ds[k][1] + ds[i][2] * ds[k][2];
  return sum / ((m * (m - 1)) / 2);
}

export function preferenceStability(judgments: PairJudgment[]): { value: number; note?: string } {
  const byPair = groupPairs(judgments);
  const rates = [...byPair.values()].map(verdictAgreement).filter((r): r is number => r !== null);
  if (!byPair.size) return { value: 0, note: 'No pairwise judgments: preference stability is not measured.' };
  if (!rates.length)
    return {
      value: 1,
      note: 'One pairwise judgment per pair: stability is not measured (R_stab = 1 by definition).',
    };
  return { value: mean(rates) };
}

export function groupPairs(judgments: PairJudgment[]): Map<string, PairJudgment[]> {
  const byPair = new Map<string, PairJudgment[]>();
  for (const j of judgments) {
    const key = [j.first, j.second].sort().join('|');
    byPair.set(key, [...(byPair.get(key) ?? []), j]);
  }
  return byPair;
}

export function reliability(answers: JudgedAnswer[], judgments: PairJudgment[]): Reliability {
  const cons = scoreConsistency(answers);
  const sep = separation(answers);
  const stab = preferenceStability(judgments);
  return {
    rCons: cons.value,
    rSep: sep.value,
    rStab: stab.value,
    notes: [cons.note, sep.note, stab.note].filter((n): n is string => !!n),
  };
}

export interface ReliabilityWeights {
  cons: number;
  sep: number;
  stab: number;
}

/** The default f: a weighted sum, with an unmeasurable separation counting as 0. */
export function weightedQuestionReward(r: Reliability, w: ReliabilityWeights): number {
  return w.cons * r.rCons + w.sep * (r.rSep ?? 0) + w.stab * r.rStab;
}

export interface KeepDecision {
  keep: boolean;
  reasons: string[];
}

/** A question is kept only when every metric reaches its threshold; each miss is named. */
export function passesThresholds(r: Reliability, t: ReliabilityWeights): KeepDecision {
  const reasons: string[] = [];
  if (r.rCons < t.cons) reasons.push(`R_cons ${r.rCons.toFixed(3)} < ${t.cons}`);
  if (r.rSep === null) reasons.push('R_sep unmeasurable (no strong/weak contrast)');
  else if (r.rSep < t.sep) reasons.push(`R_sep ${r.rSep.toFixed(3)} < ${t.sep}`);
  if (r.rStab < t.stab) reasons.push(`R_stab ${r.rStab.toFixed(3)} < ${t.stab}`);
  return { keep: reasons.length === 0, reasons };
}

/**
 * P(the first judgment's `first` answer is better) of an answer pair: the mean over its constrained verdicts, which come in both
 * orders, so the judge's preference for a position cancels out. Null without constrained verdicts.
 */
export function pairPreference(judgments: PairJudgment[]): number | null {
  const first = judgments[0]?.first;
  const ps = judgments
    .filter((j) => typeof j.pFirst === 'number')
    .map((j) => (j.first === first ? (j.pFirst as number) : 1 - (j.pFirst as number)));
  return ps.length ? mean(ps) : null;
}

/** The winner of an answer pair: by P(first) where known, else by majority; null on a tie. */
export function majorityWinner(judgments: PairJudgment[]): string | null {
  const p = pairPreference(judgments);
  if (p !== null && judgments.length) {
    if (Math.abs(p - 0.5) < 1e-12) return null;
    return p > 0.5 ? judgments[0].first : judgments[0].second;
  }
  const counts = new Map<string, number>();
  for (const j of judgments) if (j.winner) counts.set(j.winner, (counts.get(j.winner) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  if (!ranked.length || (ranked.length > 1 && ranked[0][1] === ranked[1][1])) return null;
  return ranked[0][0];
}
