/** Messages of the "Reason & Generate Tests" panel. */
import type { Disagreement, VerdictStatus } from '../../core/tests/rewards';
import type { UserVerdict } from '../../core/tests/evidence';

/** A person's verdict on an unconfirmed expectation: the test is right (accept) or wrong (reject). */
export type ExpectationJudgement = 'accept' | 'reject';

export interface StageView {
  id: number;
  name: string;
  purpose: string;
  testFocus: string;
  reasoning: string;
  testWriterOutput: string;
  tests: { name: string; source: string }[];
  /** What the test writer wrote that was not admitted, with why (duplicates, over budget, …). */
  dropped?: { line: string; reason: string }[];
  status: 'waiting' | 'reasoning' | 'writing-tests' | 'done';
}

export interface VerdictView {
  name: string;
  stage: number;
  source: string;
  onUser: VerdictStatus;
  onGenerated: VerdictStatus;
  userOutput?: string;
  generatedOutput?: string;
  valid: boolean;
  /** True when the verdict came from inside the process under test (a full test function). */
  inProcess?: boolean;
  /** What is shown on your function: a failure only when the evidence confirms it. */
  verdict?: UserVerdict;
  /** The evidence in words: how many generated implementations agree with the test. */
  evidence?: string;
  /** Your judgement of an unconfirmed expectation, once given. */
  judgement?: ExpectationJudgement;
}

export interface CodeRunView {
  functionName: string;
  file: string;
  language: string;
  model: string;
  phase: 'reasoning' | 'running-tests' | 'done' | 'error' | 'cancelled' | 'not-executed';
  message?: string;
  stages: StageView[];
  generatedCode?: string;
  verdicts: VerdictView[];
  /** Examples of the function's own docstring that it fails: failures on the user's own word. */
  failedExamples?: { example: string; output?: string }[];
  scores?: {
    reference: 'user' | 'generated';
    referenceReason: string;
    total: number;
    valid: number;
    validity: number;
    generatorReward: number;
    testWriterReward: number;
    generatorPassRateAll: number;
    /** The rewards with the tests they rest on ("generator reward 1.00 on 1 valid test of 10"). */
    support?: string;
    /** Tests your function fails, with the evidence: to review, not bugs. */
    disagreements: Disagreement[];
  };
  isolation?: string;
  /** How the test writer wrote its tests: an assertion-lines plan, or free text and why. */
  testWriting?: string;
  totalMs?: number;
}

export interface TestsHost {
  requests: {
    state: { params: null; result: CodeRunView | null };
    cancel: { params: null; result: null };
    insertTests: { params: { names: string[] }; result: { file: string; inserted: number } };
    /** Stores your judgement of an unconfirmed expectation (test-writer training data). */
    judgeExpectation: {
      params: { name: string; judgement: ExpectationJudgement };
      result: { file: string };
    };
  };
  events: {
    update: CodeRunView;
    token: { stage: number; role: 'generator' | 'test-writer'; text: string };
  };
}

export interface TestsView {
  requests: Record<string, never>;
  events: Record<string, never>;
}
