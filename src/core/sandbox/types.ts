/** The sandbox that runs generated tests: one request in, one verdict per test out. */

export type SandboxLanguage = 'python' | 'javascript' | 'typescript';

export type TestStatus = 'passed' | 'failed' | 'error' | 'timeout' | 'uncollectable';

export interface SandboxTest {
  name: string;
  /** The test's own source: one pytest function, or one `test(...)` call for node's runner. */
  source: string;
}

export interface SandboxRequest {
  language: SandboxLanguage;
  /** The module under test. Tests reach its names directly (Python: `from target import *`). */
  code: string;
  tests: SandboxTest[];
  /** Per-test limit (default 5 000 ms). */
  timeoutMs?: number;
  /** Whole-suite limit (default 60 000 ms); the process tree is killed past it. */
  suiteTimeoutMs?: number;
  /** Memory cap of the test process (default 512 MiB). */
  memoryMb?: number;
  /** Bytes of output kept per test (default 4 096). */
  outputCapBytes?: number;
  /** Python interpreter with pytest (default: $STEPWISE_PYTHON, the project venv, then python3). */
  pythonPath?: string;
  signal?: AbortSignal;
}

export interface TestVerdict {
  name: string;
  status: TestStatus;
  /** What the test printed or raised, cut to the output cap. */
  output: string;
  durationMs: number;
}

export interface IsolationReport {
  /** Whether generated code ran inside a bubblewrap sandbox. */
  isolated: boolean;
  filesystem: string;
  network: string;
  memory: string;
  processes: string;
  /** One sentence a person can read in the panel. */
  summary: string;
}

export interface SuiteResult {
  verdicts: TestVerdict[];
  summary: Record<TestStatus, number> & { total: number; durationMs: number };
  isolation: IsolationReport;
}

/** The sandbox itself could not run (not a test failing): e.g. pytest is missing. */
export class SandboxError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}
