/**
 * Trains the learned scorer from `stepwise eval prove --keep-texts` journals and measures what it
 * adds: the head is fitted on the fit side of the stable split only, and P(correct) is measured on
 * the held-out side twice — by a calibrator fitted without the learned signal and by one fitted
 * with it — beside each signal alone. The fit side's learned scores, which the second calibrator
 * is fitted on, come from heads that never saw their problem (out of fold).
 */
import type { Confidence } from '../judgment/confidence';
import {
  fitLearnedScorer,
  learnedScore,
  outOfFoldScores,
  type ConfidenceSample,
  type LearnedScorer,
} from '../judgment/learnedScorer';
import { splitOf } from '../judgment/split';
import type { ProveItemResult } from './proveEval';
import { summarizeJudgment, type JudgmentMetrics } from './proveJudgment';
import type { FittedOn } from '../judgment/calibrator';

/** One candidate whose text the journal kept. */
export interface TextCandidate {
  item: ProveItemResult;
  round: number;
  candidate: number;
  proof: string;
}

export interface LearnedJudgmentResult {
  scorer: LearnedScorer;
  /** P(correct) on held-out problems without the learned signal, and with it. */
  without: JudgmentMetrics;
  with: JudgmentMetrics;
  /** Whether the learned signal raised held-out AUROC of P(correct) without worsening its ECE by more than 0.02. */
  helps: boolean;
}

/** Every candidate with a kept text; an item without any is reported, not silently skipped. */
export function textCandidates(items: readonly ProveItemResult[]): TextCandidate[] {
  return items.flatMap((item) =>
    item.rounds.flatMap((r, round) =>
      r.candidates.flatMap((c, candidate) =>
        c.proof === undefined ? [] : [{ item, round, candidate, proof: c.proof }],
      ),
    ),
  );
}

export async function trainLearnedJudgment(
  items: readonly ProveItemResult[],
  confidenceOf: (c: TextCandidate) => Promise<Confidence>,
  /** `fittedOn`: the journals' generator and verifier, named by the calibrators fitted here. */
  options: { model: string; source?: Record<string, unknown>; fittedOn?: FittedOn | null },
): Promise<LearnedJudgmentResult> {
  const candidates = textCandidates(items);
  if (!candidates.length)
    throw new Error(
      'the journals keep no candidate texts: run `stepwise eval prove --keep-texts` to write journals the learned scorer can be fitted from.',
    );
  const samples: (ConfidenceSample & { at: TextCandidate })[] = [];
  for (const c of candidates)
    samples.push({
      problem: c.item.id,
      confidence: await confidenceOf(c),
      correct: c.item.rounds[c.round].candidates[c.candidate].correct,
      at: c,
    });
  const fitSide = samples.filter((s) => splitOf(s.problem) === 'fit');
  const positives = fitSide.filter((s) => s.correct).length;
  if (positives < 2 || fitSide.length - positives < 2)
    throw new Error(
      `the fit side has ${positives} right and ${fitSide.length - positives} wrong candidates: too few of one kind to fit a scorer (run more problems).`,
    );
  const scorer = fitLearnedScorer(fitSide, { model: options.model, source: options.source });
  const oof = outOfFoldScores(fitSide, { l2: scorer.l2 });
  const scores = new Map<TextCandidate, number>();
  fitSide.forEach((s, i) => scores.set(s.at, oof[i]));
  for (const s of samples) if (!scores.has(s.at)) scores.set(s.at, learnedScore(scorer, s.confidence));
  const withScores = withLearnedScores(items, candidates, scores);
  const without = summarizeJudgment(withLearnedScores(items, [], new Map()), undefined, options.fittedOn);
  const withSignal = summarizeJudgment(withScores, undefined, options.fittedOn);
  const [a, b] = [without.signals.pCorrect, withSignal.signals.pCorrect];
  const helps =
    a.auroc !== null &&
    b.auroc !== null &&
    b.auroc > a.auroc &&
    (a.ece === null || b.ece === null || b.ece <= a.ece + 0.02);
  return { scorer, without, with: withSignal, helps };
}

/** Copies of the items with each candidate's learned score set (null where none was computed). */
function withLearnedScores(
  items: readonly ProveItemResult[],
  candidates: readonly TextCandidate[],
  scores: ReadonlyMap<TextCandidate, number>,
): ProveItemResult[] {
  const byItem = new Map<ProveItemResult, Map<string, number>>();
  for (const c of candidates) {
    const score = scores.get(c);
    if (score === undefined) continue;
    if (!byItem.has(c.item)) byItem.set(c.item, new Map());
    byItem.get(c.item)!.set(`${c.round}/${c.candidate}`, score);
  }
  return items.map((item) => ({
    ...item,
    rounds: item.rounds.map((r, round) => ({
      ...r,
      candidates: r.candidates.map((c, i) => ({
        ...c,
        learnedScore: byItem.get(item)?.get(`${round}/${i}`) ?? null,
      })),
    })),
  }));
}
