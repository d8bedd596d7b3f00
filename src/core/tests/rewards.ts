/**
 * Validity and rewards of the accumulated suite (seed 002, progressive test generation).
 *
 * - Validity: the share of tests that pass on the reference implementation.
 * - Generator reward: pass rate of the generated code on the valid tests; 0.5 when there are none.
 * - Test-writer reward: (1 − pass rate of the generated code on all tests) · validity, so tests
 *   that break the generated code pay only as far as they are themselves correct.
 *
 * The reference is the user's function unless real consensus says otherwise (chooseReference);
 * tests the user's function fails are disagreements to review, with their evidence.
 */
import type { TestStatus } from '../sandbox/types';
import type { TestEvidence, UserVerdict } from './evidence';

/** A test's verdict, as the sandbox gives it. */
export type VerdictStatus = TestStatus;

export interface DualVerdict {
  name: string;
  stage: number;
  /** Verdict against the user's function. */
  onUser: VerdictStatus;
  /** Verdict against the stage-5 generated code (the generator's reward is computed on it). */
  onGenerated: VerdictStatus;
  /**
   * Verdicts against every independently sampled implementation (agreement mode), the stage-5
   * code first; absent when only one was generated.
   */
  onSamples?: VerdictStatus[];
  /** What the test feeds the function (the call of an assertion test), for a person to review. */
  input?: string;
  /** What the user's function did, when the test failed on it. */
  userOutput?: string;
  /** How far the generated implementations back this test, and the verdict it allows. */
  evidence?: TestEvidence;
  verdict?: UserVerdict;
}

export type ReferenceMode = 'user' | 'agreement';

/** A test the user's function fails: shown for review with the evidence, never called a bug. */
export interface Disagreement {
  name: string;
  /** The input (call) the test makes, or the test itself. */
  input: string;
  /** How the user's function fared, and what it did. */
  onUser: VerdictStatus;
  userOutput?: string;
  /** How many independently generated implementations pass this test, of how many. */
  samplesPassing: number;
  samples: number;
  /** Confirmed failure, or an unconfirmed expectation to review (evidence.ts). */
  verdict?: UserVerdict;
  evidence?: TestEvidence;
}

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
  /** Tests the user's function fails, with the evidence for each: for a person to review. */
  disagreements: Disagreement[];
}

const passed = (s: VerdictStatus) => s === 'passed';

const samplesOf = (v: DualVerdict) => v.onSamples ?? [v.onGenerated];

/** Independent generated implementations required to agree before one replaces the user's function. */
export const DEFAULT_AGREEMENT_SAMPLES = 3;

/**
 * Picks the reference. With `user` (the default), the user's function is ground truth. With
 * `agreement`, a generated implementation is trusted instead only on real consensus: at least
 * `required` independently sampled implementations pass exactly the same tests (dual execution
 * agreement, CodeT), and that set is larger than the user's. Agreement between one generated
 * implementation and generated tests is weak evidence; without consensus the user's function stays.
 */
export function chooseReference(
  verdicts: DualVerdict[],
  mode: ReferenceMode,
  required = DEFAULT_AGREEMENT_SAMPLES,
): { reference: 'user' | 'generated'; reason: string } {
  if (mode === 'user') return { reference: 'user', reason: 'Your function is the reference.' };
  const samples = verdicts.length ? samplesOf(verdicts[0]).length : 0;
  const passSet = (k: number) =>
    verdicts
      .filter((v) => passed(samplesOf(v)[k] ?? 'error'))
      .map((v) => v.name)
      .join('\u0000');
  const sets = Array.from({ length: samples }, (_, k) => passSet(k));
  const agreeing = sets.filter((s) => s === sets[0]).length;
  const consensusPasses = verdicts.filter((v) => passed(samplesOf(v)[0] ?? 'error')).length;
  const userPasses = verdicts.filter((v) => passed(v.onUser)).length;
  if (samples < required || agreeing < required) {
    return {
      reference: 'user',
      reason: `Agreement mode needs ${required} independent implementations that pass the same tests; ${agreeing} of ${samples} agree, so your function stays the reference.`,
    };
  }
  if (consensusPasses > userPasses) {
    return {
      reference: 'generated',
      reason: `${agreeing} independent generated implementations agree (each passes the same ${consensusPasses} tests); your function passes ${userPasses}. The generated consensus is the reference: review the disagreements below.`,
    };
  }
  return {
    reference: 'user',
    reason: `${agreeing} independent generated implementations agree and pass ${consensusPasses} tests; your function passes ${userPasses}, so it stays the reference.`,
  };
}

export function scoreSuite(
  verdicts: DualVerdict[],
  mode: ReferenceMode,
  required = DEFAULT_AGREEMENT_SAMPLES,
): SuiteScores {
  const { reference, reason } = chooseReference(verdicts, mode, required);
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
    disagreements: verdicts
      .filter((v) => !passed(v.onUser))
      .map((v) => ({
        name: v.name,
        input: v.input ?? v.name,
        onUser: v.onUser,
        userOutput: v.userOutput,
        samplesPassing: samplesOf(v).filter(passed).length,
        samples: samplesOf(v).length,
        ...(v.verdict ? { verdict: v.verdict } : {}),
        ...(v.evidence ? { evidence: v.evidence } : {}),
      })),
  };
}

/**
 * The rewards with the support they rest on: "generator reward 1.00 on 1 valid test of 10". A
 * reward computed from one valid test is not the same claim as one from ten.
 */
export function rewardSupportText(
  s: Pick<SuiteScores, 'generatorReward' | 'testWriterReward' | 'valid' | 'total'>,
): string {
  const tests = `${s.valid} valid test${s.valid === 1 ? '' : 's'} of ${s.total}`;
  const generator =
    s.valid === 0
      ? `generator reward ${s.generatorReward.toFixed(2)} (neutral: no valid test of ${s.total})`
      : `generator reward ${s.generatorReward.toFixed(2)} on ${tests}`;
  return `${generator}; test-writer reward ${s.testWriterReward.toFixed(2)} on ${s.total} test${s.total === 1 ? '' : 's'}`;
}

/** 0.5 (neutral) when no valid test exists; otherwise the pass rate. */
export function generatorRewardFromPassRate(validCount: number, passRate: number): number {
  return validCount === 0 ? 0.5 : passRate;
}

/** (1 − generator pass rate) · validity; no tests earn nothing. */
export function testWriterReward(generatorPassRate: number, validity: number, total: number): number {
  return total === 0 ? 0 : (1 - generatorPassRate) * validity;
}
