/** The sandbox that runs generated tests: one request in, one verdict per test out. */

/** Default size of the sandbox's writable folder, in MiB. */
export const DEFAULT_DISK_MB = 256;

export type SandboxLanguage = 'python' | 'javascript' | 'typescript';

/**
 * `flaky`: an assertion test whose call completed in two runs of the code with two verdicts
 * (passed in one, failed in the other); it is neither a pass nor a failure.
 */
export type TestStatus = 'passed' | 'failed' | 'error' | 'timeout' | 'uncollectable' | 'flaky';

export interface SandboxTest {
  name: string;
  /** The test's own source: one pytest function, or one `test(...)` call for node's runner. */
  source: string;
}

/** What every sandboxed run takes besides its tests: the code under test, its language and limits. */
export interface SandboxRun {
  language: SandboxLanguage;
  /** The module under test. Tests reach its names directly (Python: `from target import *`). */
  code: string;
  /** Per-test (per-call, for assertion tests) limit (default 5 000 ms). */
  timeoutMs?: number;
  /** Whole-suite limit (default 60 000 ms); the process tree is killed past it. */
  suiteTimeoutMs?: number;
  /** Memory cap of the whole sandbox, all its processes together (default 512 MiB). */
  memoryMb?: number;
  /** CPU cores the code under test may use (default SANDBOX_DEFAULTS.cpuCores). */
  cpuCores?: number;
  /** Size of the one writable folder, a private tmpfs (default DEFAULT_DISK_MB MiB). */
  diskMb?: number;
  /** Bytes of output kept per test (default 4 096). */
  outputCapBytes?: number;
  /** Python interpreter with pytest (default: $STEPWISE_PYTHON, the project venv, then python3). */
  pythonPath?: string;
  signal?: AbortSignal;
}

export interface SandboxRequest extends SandboxRun {
  tests: SandboxTest[];
}

export interface TestVerdict {
  name: string;
  status: TestStatus;
  /** What the test printed or raised, cut to the output cap. */
  output: string;
  durationMs: number;
  /**
   * True when the verdict came from inside the process under test (pytest, node --test), which
   * can rewrite it; such verdicts are never a training reward. False for assertion tests judged
   * by the oracle runner in the host.
   */
  inProcess: boolean;
}

export interface IsolationReport {
  /** Whether generated code ran inside a bubblewrap sandbox. */
  isolated: boolean;
  filesystem: string;
  network: string;
  /** Which memory caps are in force: the whole sandbox's, and each process's. */
  memory: string;
  processes: string;
  /** How many CPU cores the code may use, and how that is held. */
  cpu: string;
  /** Whether the kernel keyring is out of reach. */
  keyring: string;
  /** Every host path bound read-only into the sandbox by the runs so far (besides their own inputs). */
  bound: string[];
  /** Which user the code runs as, and with which privileges. */
  user: string;
  /** How much the code may write. */
  disk: string;
  /** Pieces of the confinement this machine lacks (empty when complete). */
  missing: string[];
  /** One sentence a person can read in the panel. */
  summary: string;
}

export interface SuiteResult {
  verdicts: TestVerdict[];
  summary: Record<TestStatus, number> & { total: number; durationMs: number };
  isolation: IsolationReport;
  /** Whether any verdict came from inside the process under test (see TestVerdict.inProcess). */
  inProcess: boolean;
  /** Tests not run because the code ran out of time on too many (AssertionRequest.maxTimeouts). */
  timeCapped?: number;
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
