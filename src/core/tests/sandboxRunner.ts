import { runAssertions, runSuite } from '../sandbox/index';
import type { TestVerdict } from '../sandbox/types';
import type { SuiteRunner } from './pipeline';

export interface SandboxSettings {
  perTestTimeoutMs: number;
  suiteTimeoutMs: number;
  memoryMb: number;
  /** Size of the sandbox's writable folder (stepwise.sandbox.diskMb). */
  diskMb?: number;
  pythonPath?: string;
  /** Runs of the code per assertion call (stepwise.tests.runs; default DEFAULT_CALL_RUNS). */
  runs?: number;
}

/**
 * The five-stage pipeline's suite runner: the real sandbox, with the user's limits. Assertion
 * tests go to the oracle runner (judged in the host); whole test functions run in-process and
 * their verdicts say so.
 */
export function createSandboxSuiteRunner(settings: SandboxSettings): SuiteRunner {
  return async ({ language, code, tests, signal, maxTimeouts }) => {
    const lang = language === 'tsx' ? 'typescript' : language;
    const limits = {
      timeoutMs: settings.perTestTimeoutMs,
      suiteTimeoutMs: settings.suiteTimeoutMs,
      memoryMb: settings.memoryMb,
      diskMb: settings.diskMb,
      pythonPath: settings.pythonPath,
      signal,
    };
    const assertions = tests.flatMap((t) => (t.assertion ? [{ ...t.assertion, name: t.name }] : []));
    const functions = tests.filter((t) => !t.assertion);
    const verdicts: TestVerdict[] = [];
    let isolation = '';
    let timeCapped: number | undefined;
    if (assertions.length) {
      const r = await runAssertions({
        language: lang,
        code,
        tests: assertions,
        runs: settings.runs,
        maxTimeouts,
        ...limits,
      });
      verdicts.push(...r.verdicts);
      isolation = r.isolation.summary;
      timeCapped = r.timeCapped;
    }
    if (functions.length) {
      const r = await runSuite({ language: lang, code, tests: functions, ...limits });
      verdicts.push(...r.verdicts);
      isolation = r.isolation.summary;
    }
    return { verdicts, isolation, ...(timeCapped ? { timeCapped } : {}) };
  };
}
