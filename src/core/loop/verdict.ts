/**
 * Whether the PRM a loop trained should replace the current step scorer. The loop measures it
 * three ways on held-out data: step AUROC against the untrained verifier on the same labelled
 * steps, and best-of-N accuracy against the self-score pick and a single sample on the same
 * candidates. A model that loses any of them would make the product worse where it is used, so it
 * is recommended only when it wins the first and loses neither of the others; each comparison
 * also says whether its 95 % interval excludes zero, since small held-out sets often cannot tell.
 * When a PRM is already in use, it replaces the verifier as the bar, and its picks join the
 * best-of-N comparisons.
 */
import * as fs from 'node:fs';
import { outputPaths } from '../eval/evaluation';
import { readJournal } from '../eval/journal';
import type { PrmItemResult } from '../eval/prmEval';
import { auroc, mulberry32, percentileInterval, type ScoredOutcome } from '../math/stats';
import type { LoopBestOfN, PairedDifference } from './bestOfN';

/** Step AUROC of one scorer minus another's on the same steps, with a paired bootstrap interval. */
export interface PairedAuroc {
  first: number | null;
  second: number | null;
  difference: number | null;
  /** 95 % percentile interval, resampling steps (each step keeps both of its scores). */
  interval: { low: number; high: number } | null;
  /** Steps labelled in both item sets. */
  steps: number;
}

/**
 * Pairs the steps two `eval prm` runs scored (same solution id and step index) and compares their
 * AUROC. Steps only one run scored are left out, so both figures read the same labels.
 */
export function pairedStepAuroc(
  first: readonly Pick<PrmItemResult, 'id' | 'ratings' | 'scores'>[],
  second: readonly Pick<PrmItemResult, 'id' | 'ratings' | 'scores'>[],
  seed = 1,
  resamples = 1000,
): PairedAuroc {
  const other = new Map(second.map((it) => [it.id, it]));
  const pairs: { correct: boolean; a: number; b: number }[] = [];
  for (const it of first) {
    const match = other.get(it.id);
    if (!match) continue;
    const n = Math.min(it.scores.length, match.scores.length, it.ratings.length);
    // Neutral steps count as not wrong, as in the PRM report and in training.
    for (let i = 0; i < n; i++)
      pairs.push({ correct: it.ratings[i] !== -1, a: it.scores[i], b: match.scores[i] });
  }
  const side = (ps: typeof pairs, key: 'a' | 'b'): ScoredOutcome[] =>
    ps.map((p) => ({ score: p[key], correct: p.correct }));
  const a = auroc(side(pairs, 'a'));
  const b = auroc(side(pairs, 'b'));
  const result: PairedAuroc = { first: a, second: b, difference: null, interval: null, steps: pairs.length };
  if (a === null || b === null) return result;
  result.difference = a - b;
  const random = mulberry32(seed);
  const differences: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const sample = Array.from({ length: pairs.length }, () => pairs[Math.floor(random() * pairs.length)]);
    const x = auroc(side(sample, 'a'));
    const y = auroc(side(sample, 'b'));
    if (x !== null && y !== null) differences.push(x - y);
  }
  if (differences.length >= resamples / 2) result.interval = percentileInterval(differences);
  return result;
}

export type ComparisonOutcome = 'better' | 'tie' | 'worse';

export interface Comparison {
  /** What the new PRM is compared with, as a person reads it. */
  against: string;
  measure: 'step AUROC' | 'best-of-N accuracy';
  /** The PRM's figure minus the other's (AUROC points, or a share of problems). */
  difference: number;
  interval: { low: number; high: number } | null;
  outcome: ComparisonOutcome;
  /** The interval excludes zero. */
  clear: boolean;
}

export interface ScorerVerdict {
  /** Replace the current step scorer with the new PRM. */
  use: boolean;
  comparisons: Comparison[];
  /** One sentence: what to do, and the comparisons that decided it. */
  summary: string;
  /** Comparisons that could not be made, and why. */
  missing: string[];
}

function compare(
  against: string,
  measure: Comparison['measure'],
  difference: number,
  interval: { low: number; high: number } | null,
): Comparison {
  // Any difference counts (the tolerance only absorbs floating-point error); `clear` says whether it is more than noise.
  const outcome: ComparisonOutcome = difference > 1e-9 ? 'better' : difference < -1e-9 ? 'worse' : 'tie';
  const clear = !!interval && (interval.low > 0 || interval.high < 0);
  return { against, measure, difference, interval, outcome, clear };
}

const signed = (x: number, digits: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`;

function describe(c: Comparison): string {
  const points = c.measure === 'step AUROC';
  const fmt = (x: number) => (points ? signed(x, 3) : `${signed(x * 100, 0)} points`);
  const range = c.interval
    ? ` [${fmt(c.interval.low)}, ${fmt(c.interval.high)}]${c.clear ? '' : ', within noise'}`
    : '';
  return `${c.measure} ${fmt(c.difference)} against ${c.against}${range}`;
}

/**
 * The recommendation from a loop's held-out measurements. `stepAuroc` is the PRM against the
 * verifier on the held-out labels (absent when no held-out step was labelled); `bestOfN` the
 * paired selections on the held-out samples. `current` is present when a PRM was in use before
 * the loop: then the new one must beat that PRM's step AUROC and lose no pick to it, since it is
 * what would be replaced; its comparison with the verifier is still shown but does not decide.
 */
export function scorerVerdict(measured: {
  stepAuroc?: PairedAuroc | null;
  current?: { stepAuroc?: PairedAuroc | null };
  bestOfN?: Pick<LoopBestOfN, 'differences'> | null;
}): ScorerVerdict {
  const comparisons: Comparison[] = [];
  const missing: string[] = [];
  const current = measured.current;
  const inUse = current ? 'the current PRM' : 'the verifier';
  const steps = (against: string, p: PairedAuroc | null | undefined, required: boolean) => {
    if (p && p.difference !== null)
      comparisons.push(compare(against, 'step AUROC', p.difference, p.interval));
    else if (required)
      missing.push(`step AUROC against ${against} (no held-out steps with both right and wrong labels)`);
  };
  if (current) steps('the current PRM', current.stepAuroc, true);
  steps('the verifier', measured.stepAuroc, !current);
  const d = measured.bestOfN?.differences;
  const pick = (name: string, diff: PairedDifference | undefined) =>
    diff
      ? comparisons.push(compare(name, 'best-of-N accuracy', diff.difference, diff.interval))
      : missing.push(`best-of-N accuracy against ${name}`);
  pick('the self-score pick', d?.prmVsSelf);
  pick('a single sample', d?.prmVsSingle);
  if (current) pick("the current PRM's pick", d?.prmVsCurrent);
  const auroc = comparisons.find((c) => c.measure === 'step AUROC' && c.against === inUse);
  const counted = comparisons.filter((c) => !(current && c.against === 'the verifier'));
  const lost = counted.filter((c) => c.outcome === 'worse');
  const use = !!auroc && auroc.outcome === 'better' && lost.length === 0 && missing.length === 0;
  let summary: string;
  if (use) {
    const noisy = counted.some((c) => !c.clear);
    summary = `Use the new PRM: ${comparisons.map(describe).join('; ')}.${noisy ? ' Some gains are within noise; more held-out problems would tell.' : ''}`;
  } else {
    const deciding = lost.length ? lost : counted.filter((c) => c.outcome !== 'better');
    const why = [...deciding.map(describe), ...missing.map((m) => `not measured: ${m}`)];
    summary = `Keep ${current ? 'the current PRM' : 'the current step scorer'}: the new PRM is not better on held-out data (${why.join('; ')}).`;
  }
  return { use, comparisons, summary, missing };
}

type StepItems = Pick<PrmItemResult, 'id' | 'ratings' | 'scores'>[];

function stepItems(resultFile: string): StepItems | null {
  const { journal } = outputPaths(resultFile);
  if (!fs.existsSync(journal)) return null;
  // A failed item retried later appears twice; its last result counts.
  const byId = new Map<string, StepItems[number]>();
  for (const e of readJournal<StepItems[number]>(journal).entries) if (e.result) byId.set(e.id, e.result);
  return [...byId.values()];
}

/**
 * The verdict on a finished loop from its folder's files: the `eval prm` journals of the PRM and
 * the verifier (`eval-prm.json`, `eval-prm-verifier.json`), of the PRM in use before the loop when
 * there was one (`currentResult`), and the best-of-N figures the loop's evaluate phase recorded.
 */
export function loopVerdict(
  prmResult: string,
  verifierResult: string,
  bestOfN: Pick<LoopBestOfN, 'differences'> | null | undefined,
  currentResult?: string,
): ScorerVerdict {
  const prm = stepItems(prmResult);
  const against = (file: string) => {
    const other = stepItems(file);
    return prm && other ? pairedStepAuroc(prm, other) : null;
  };
  return scorerVerdict({
    stepAuroc: against(verifierResult),
    current: currentResult === undefined ? undefined : { stepAuroc: against(currentResult) },
    bestOfN,
  });
}
