/**
 * Two prove journals over the same problems, judged differently: the default model's candidates
 * under its own verifier in one and under a larger verifier in the other. Each signal's AUROC in
 * journal A is compared with its AUROC in journal B on the problems both finished, with a 95 %
 * paired bootstrap interval that resamples problems, each bringing its candidates from both
 * journals. Comparing the two journals' separate intervals would count the problems' difficulty
 * twice; pairing by problem cancels it.
 *
 * Pairing is by problem, not by candidate. One build on one machine repeats a seed's candidates
 * exactly, but journals written by other builds or hosts part after a few hundred characters (one
 * float rounded differently moves a sampled token), so the candidates themselves may differ.
 */
import { FEATURE_NAMES, type FeatureName, type Features } from '../judgment/features';
import { auroc, pairedBootstrapInterval, type ScoredOutcome } from '../math/stats';
import type { ProveItemResult } from './proveEval';
import { labelledCandidates } from './proveJudgment';

export interface SignalDifference {
  /** AUROC of the signal in journal A and in journal B, on the shared problems. */
  a: number | null;
  b: number | null;
  /** A − B and its 95 % paired bootstrap interval (problems resampled, seeded). */
  difference: number | null;
  interval: { low: number; high: number } | null;
  /** Candidates where each journal measured the signal. */
  candidates: { a: number; b: number };
}

export interface PairedSignals {
  problems: number;
  candidates: { a: number; b: number };
  positives: { a: number; b: number };
  signals: Record<FeatureName, SignalDifference>;
}

interface Scored {
  correct: boolean;
  features: Features;
}
type PairedProblem = { a: Scored[]; b: Scored[] };
type Side = 'a' | 'b';

/** Candidates of each problem, keyed by problem. */
function byProblem(items: readonly ProveItemResult[]): Map<string, Scored[]> {
  const out = new Map<string, Scored[]>();
  for (const c of labelledCandidates(items)) {
    if (!out.has(c.problem)) out.set(c.problem, []);
    out.get(c.problem)!.push({ correct: c.correct, features: c.features });
  }
  return out;
}

export function pairedSignalDifferences(
  a: readonly ProveItemResult[],
  b: readonly ProveItemResult[],
): PairedSignals {
  const right = byProblem(b);
  const problems: PairedProblem[] = [...byProblem(a)].flatMap(([problem, candidates]) =>
    right.has(problem) ? [{ a: candidates, b: right.get(problem)! }] : [],
  );
  const count = (side: Side, keep: (c: Scored) => boolean) =>
    problems.reduce((n, p) => n + p[side].filter(keep).length, 0);
  return {
    problems: problems.length,
    candidates: { a: count('a', () => true), b: count('b', () => true) },
    positives: { a: count('a', (c) => c.correct), b: count('b', (c) => c.correct) },
    signals: Object.fromEntries(FEATURE_NAMES.map((f) => [f, signalDifference(problems, f)])) as Record<
      FeatureName,
      SignalDifference
    >,
  };
}

function signalDifference(problems: readonly PairedProblem[], feature: FeatureName): SignalDifference {
  const points = (sample: readonly PairedProblem[], side: Side): ScoredOutcome[] =>
    sample.flatMap((p) =>
      p[side].flatMap((c) =>
        c.features[feature] === null ? [] : [{ score: c.features[feature]!, correct: c.correct }],
      ),
    );
  const minus = (x: number | null, y: number | null) => (x === null || y === null ? null : x - y);
  const [onA, onB] = [points(problems, 'a'), points(problems, 'b')];
  const [a, b] = [auroc(onA), auroc(onB)];
  return {
    a,
    b,
    difference: minus(a, b),
    interval: pairedBootstrapInterval(problems, (sample) =>
      minus(auroc(points(sample, 'a')), auroc(points(sample, 'b'))),
    ),
    candidates: { a: onA.length, b: onB.length },
  };
}
