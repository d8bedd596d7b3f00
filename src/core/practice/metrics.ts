/**
 * Reliability of one self-generated question (seed 001), from repeated judging:
 *
 * - R_cons = 1 − Var(J(q, a_i)): one minus the variance of the repeated judge scores of the same
 *   answer, averaged over the answers (population variance; scores are in [0, 1]).
 * - R_sep = E[J(q, a_strong)] − E[J(q, a_weak)]: mean score of answers from the strong sampling
 *   regimes minus that of the weak ones.
 * - R_stab = Pr(repeated pairwise judgments agree): for each answer pair judged m times (both
 *   orders), the share of pairs of judgments that name the same winner, averaged over answer pairs.
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
  /** Repeated judge scores in [0, 1]; unparseable judgments are left out before this point. */
  scores: number[];
}

/** One pairwise judgment, already mapped back to answer ids (position bias undone). */
export interface PairJudgment {
  first: string;
  second: string;
  /** The answer the judge preferred, or null for a tie / unparseable verdict. */
  winner: string | null;
  /** Whether `first` was shown in position A. */
  order: 'ab' | 'ba';
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

export function scoreConsistency(answers: JudgedAnswer[]): { value: number; note?: string } {
  const judged = answers.filter((a) => a.scores.length > 0);
  if (!judged.length) return { value: 0, note: 'No answer received a valid judge score.' };
  const value = 1 - mean(judged.map((a) => variance(a.scores)));
  const single = judged.every((a) => a.scores.length < 2);
  return single
    ? {
        value,
        note: 'One judge pass per answer: score consistency is not measured (R_cons = 1 by definition).',
      }
    : { value };
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

export function preferenceStability(judgments: PairJudgment[]): { value: number; note?: string } {
  const byPair = groupPairs(judgments);
  const rates = [...byPair.values()]
    .map((js) => agreementRate(js.map((j) => j.winner)))
    .filter((r): r is number => r !== null);
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

/** Majority winner of an answer pair, or null when the judgments tie. */
export function majorityWinner(judgments: PairJudgment[]): string | null {
  const counts = new Map<string, number>();
  for (const j of judgments) if (j.winner) counts.set(j.winner, (counts.get(j.winner) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  if (!ranked.length || (ranked.length > 1 && ranked[0][1] === ranked[1][1])) return null;
  return ranked[0][0];
}
