import type { CandidateRecord, ProveOptions } from './runSchema';

export type RerankBy = ProveOptions['rerankBy'];

/** The scores a candidate can be ranked by; null where it has none. */
export function candidateScores(c: CandidateRecord): {
  pCorrect: number | null;
  prm: number | null;
  verifier: number | null;
  self: number | null;
} {
  return {
    pCorrect: c.judgment?.pCorrect ?? null,
    prm: c.stepScores?.solutionScore ?? null,
    verifier: c.verifier?.score ?? null,
    self: c.parsed.selfScore,
  };
}

// The chosen key decides; the other two break ties, so that equal verifier scores still prefer
// the candidate whose steps look sounder.
// P(correct) already combines the others; where no candidate has one, the verifier decides.
const KEY_ORDER: Record<RerankBy, ('pCorrect' | 'prm' | 'verifier' | 'self')[]> = {
  'p-correct': ['pCorrect', 'verifier', 'prm', 'self'],
  verifier: ['verifier', 'prm', 'self'],
  prm: ['prm', 'verifier', 'self'],
  self: ['self', 'verifier', 'prm'],
};

/**
 * Candidate indexes, best first. A missing score ranks below every present one; candidates that
 * tie on every key keep their generation order.
 */
export function rankCandidates(candidates: readonly CandidateRecord[], by: RerankBy): number[] {
  const keys = KEY_ORDER[by];
  const scored = candidates.map((c) => ({ index: c.index, scores: candidateScores(c) }));
  scored.sort((a, b) => {
    for (const key of keys) {
      const x = a.scores[key] ?? -1;
      const y = b.scores[key] ?? -1;
      if (x !== y) return y - x;
    }
    return a.index - b.index;
  });
  return scored.map((s) => s.index);
}
