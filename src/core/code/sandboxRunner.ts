import { runSuite } from '../sandbox/index';
import type { SuiteRunner } from './pipeline';

export interface SandboxSettings {
  perTestTimeoutMs: number;
  suiteTimeoutMs: number;
  memoryMb: number;
  pythonPath?: string;
}

/** The five-stage pipeline's suite runner: the real sandbox, with the user's limits. */
export function createSandboxSuiteRunner(settings: SandboxSettings): SuiteRunner {
  return async ({ language, code, tests, signal }) => {
    const result = await runSuite({
      language: language === 'tsx' ? 'typescript' : language,
      code,
      tests,
      timeoutMs: settings.perTestTimeoutMs,
      suiteTimeoutMs: settings.suiteTimeoutMs,
      memoryMb: settings.memoryMb,
      pythonPath: settings.pythonPath,
      signal,
    });
    return { verdicts: result.verdicts, isolation: result.isolation.summary };
  };
}
