import type { CandidateOutcome, ProveItemResult } from '../../../src/core/eval/proveEval';

/**
 * A completed Prove evaluation item of one initial round that chose its first candidate, as the
 * journal stores it; `rest` sets whatever a test reads beyond that (the final answer, timings).
 */
export function oneRoundItem(
  id: string,
  reference: string,
  candidates: CandidateOutcome[],
  rest: Partial<ProveItemResult> = {},
): ProveItemResult {
  return {
    id,
    reference,
    status: 'completed',
    stopReason: 'max-iterations',
    error: null,
    rounds: [{ kind: 'initial', chosen: 0, candidates }],
    final: null,
    stepScorer: null,
    ms: 0,
    ...rest,
  };
}
