/**
 * The verdict rules `stepwise eval tests` records beside the product's, so that one run compares
 * them (docs/test-verdicts.md): every implementation counted, the specification's examples
 * ignored (the rule before examples), and the counted implementations plus the user's function.
 */
import { testEvidence } from '../tests/evidence';
import type { FiveStageRun } from '../tests/pipeline';
import type { VerdictStatus } from '../tests/rewards';

/**
 * The confidences under the two rules weighed against the product's: every implementation
 * counted (examples ignored), and the counted implementations plus the user's function as one more
 * implementation (`withUser(row)`, the user's statuses on the suite).
 */
export function alternativeRules(run: FiveStageRun): {
  /** Every implementation's status on every test (`matrix[k][t]`, the stage-5 code first). */
  matrix: VerdictStatus[][];
  every: number[];
  withUser: (row: VerdictStatus[]) => number[];
} {
  const tests = run.accumulatedSuite.length;
  const implementations = 1 + (run.samples?.length ?? 0);
  const matrix = Array.from({ length: implementations }, (_, k) =>
    run.verdicts.map((v) => (v.onSamples ? v.onSamples[k] : v.onGenerated) ?? ('error' as const)),
  );
  const counted = run.examples?.implementationsCounted ?? matrix.map(() => true);
  const every = testEvidence(matrix, tests).map((e) => e.confidence);
  const withUser = (row: VerdictStatus[]) =>
    testEvidence([...matrix.filter((_, k) => counted[k]), row], tests).map((e) => e.confidence);
  return { matrix, every, withUser };
}
