/** Messages of the "Reason & Generate Tests" panel. */
import type { Disagreement, VerdictStatus } from '../../core/codeReasoning/rewards';

export interface StageView {
  id: number;
  name: string;
  purpose: string;
  testFocus: string;
  reasoning: string;
  testWriterOutput: string;
  tests: { name: string; source: string }[];
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
  scores?: {
    reference: 'user' | 'generated';
    referenceReason: string;
    total: number;
    valid: number;
    validity: number;
    generatorReward: number;
    testWriterReward: number;
    generatorPassRateAll: number;
    /** Tests your function fails, with the evidence: to review, not bugs. */
    disagreements: Disagreement[];
  };
  isolation?: string;
  /** How the test writer wrote its tests: an assertion-lines plan, or free text and why. */
  testWriting?: string;
  totalMs?: number;
}

export interface CodeReasoningHost {
  requests: {
    state: { params: null; result: CodeRunView | null };
    cancel: { params: null; result: null };
    insertTests: { params: { names: string[] }; result: { file: string; inserted: number } };
  };
  events: {
    update: CodeRunView;
    token: { stage: number; role: 'generator' | 'test-writer'; text: string };
  };
}

export interface CodeReasoningView {
  requests: Record<string, never>;
  events: Record<string, never>;
}
