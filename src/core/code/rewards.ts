/**
 * Validity and rewards of the accumulated suite (seed 002, progressive test generation).
 *
 * - Validity: the share of tests that pass on the reference implementation.
 * - Generator reward: pass rate of the generated code on the valid tests; 0.5 when there are none.
 * - Test-writer reward: (1 − pass rate of the generated code on all tests) · validity, so tests
 *   that break the generated code pay only as far as they are themselves correct.
 */

export type VerdictStatus = 'passed' | 'failed' | 'error' | 'timeout' | 'uncollectable';

export interface DualVerdict {
  name: string;
  stage: number;
  /** Verdict against the user's function. */
  onUser: VerdictStatus;
  /** Verdict against the stage-5 generated code. */
  onGenerated: VerdictStatus;
}

export type ReferenceMode = 'user' | 'agreement';

export interface SuiteScores {
  /** Which implementation served as ground truth, and why. */
  reference: 'user' | 'generated';
  referenceReason: string;
  total: number;
  valid: number;
  validity: number;
  generatorPassRateAll: number;
  generatorPassRateValid: number;
  generatorReward: number;
  testWriterReward: number;
  /** Valid tests the user's function fails: likely bugs in the user's code (agreement mode only). */
  suspectedBugs: string[];
}

const passed = (s: VerdictStatus) => s === 'passed';

/**
 * Picks the reference. With `user`, the user's function is ground truth. With `agreement`, dual
 * execution agreement (CodeT) decides: each implementation's score is the number of tests it
 * passes times the number of implementations passing exactly the same set; the higher score is
 * the reference, ties going to the user's function.
 */
export function chooseReference(
  verdicts: DualVerdict[],
  mode: ReferenceMode,
): { reference: 'user' | 'generated'; reason: string } {
  if (mode === 'user') return { reference: 'user', reason: 'You marked your function as the reference.' };
  const userSet = verdicts.filter((v) => passed(v.onUser)).map((v) => v.name);
  const genSet = verdicts.filter((v) => passed(v.onGenerated)).map((v) => v.name);
  const same = userSet.length === genSet.length && userSet.every((n, i) => n === genSet[i]);
  const cluster = same ? 2 : 1;
  const userScore = userSet.length * cluster;
  const genScore = genSet.length * cluster;
  if (genScore > userScore) {
    return {
      reference: 'generated',
      reason: `Dual execution agreement: the generated code passes ${genSet.length} tests, your function ${userSet.length}; the generated code is taken as reference.`,
    };
  }
  return {
    reference: 'user',
    reason: same
      ? `Dual execution agreement: both implementations pass the same ${userSet.length} tests.`
      : `Dual execution agreement: your function passes ${userSet.length} tests, the generated code ${genSet.length}; your function is taken as reference.`,
  };
}

export function scoreSuite(verdicts: DualVerdict[], mode: ReferenceMode): SuiteScores {
  const { reference, reason } = chooseReference(verdicts, mode);
  const onRef = (v: DualVerdict) => (reference === 'user' ? v.onUser : v.onGenerated);
  const total = verdicts.length;
  const validTests = verdicts.filter((v) => passed(onRef(v)));
  const valid = validTests.length;
  const validity = total === 0 ? 0 : valid / total;
  const generatorPassRateAll = total === 0 ? 0 : verdicts.filter((v) => passed(v.onGenerated)).length / total;
  const generatorPassRateValid =
    valid === 0 ? 0.5 : validTests.filter((v) => passed(v.onGenerated)).length / valid;
  return {
    reference,
    referenceReason: reason,
    total,
    valid,
    validity,
    generatorPassRateAll,
    generatorPassRateValid,
    generatorReward: generatorRewardFromPassRate(valid, generatorPassRateValid),
    testWriterReward: testWriterReward(generatorPassRateAll, validity, total),
    suspectedBugs:
      reference === 'generated' ? validTests.filter((v) => !passed(v.onUser)).map((v) => v.name) : [],
  };
}

/** 0.5 (neutral) when no valid test exists; otherwise the pass rate. */
export function generatorRewardFromPassRate(validCount: number, passRate: number): number {
  return validCount === 0 ? 0.5 : passRate;
}

/** (1 − generator pass rate) · validity; no tests earn nothing. */
export function testWriterReward(generatorPassRate: number, validity: number, total: number): number {
  return total === 0 ? 0 : (1 - generatorPassRate) * validity;
}
