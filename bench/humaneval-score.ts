/**
 * The hook the five-stage pipeline plugs into on HumanEval: given the tests generated for one
 * problem, how many are valid (pass the canonical solution) and what share of the known-wrong
 * variants (mutants) the valid ones catch.
 */
import { runSuite } from '../src/core/sandbox/index';
import type { SandboxTest } from '../src/core/sandbox/types';

export interface HumanEvalProblem {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  test: string;
  entry_point: string;
}

export interface GeneratedTestsScore {
  task: string;
  tests: number;
  /** Tests that pass on the canonical solution. */
  valid: number;
  /** valid / tests (0 when there are none). */
  validity: number;
  mutants: number;
  /** Mutants at least one valid test fails on. */
  caught: number;
  /** caught / mutants (0 when there are none). */
  catchRate: number;
}

const LIMITS = { timeoutMs: 10_000, suiteTimeoutMs: 60_000 } as const;

export async function scoreGeneratedTests(
  problem: HumanEvalProblem,
  tests: SandboxTest[],
  mutantCodes: string[],
): Promise<GeneratedTestsScore> {
  const reference = problem.prompt + problem.canonical_solution;
  const onReference = tests.length
    ? await runSuite({ language: 'python', code: reference, tests, ...LIMITS })
    : { verdicts: [] };
  const validTests = tests.filter((_, i) => onReference.verdicts[i]?.status === 'passed');
  let caught = 0;
  if (validTests.length) {
    for (const code of mutantCodes) {
      const r = await runSuite({ language: 'python', code, tests: validTests, ...LIMITS });
      if (r.verdicts.some((v) => v.status !== 'passed')) caught++;
    }
  }
  return {
    task: problem.task_id,
    tests: tests.length,
    valid: validTests.length,
    validity: tests.length ? validTests.length / tests.length : 0,
    mutants: mutantCodes.length,
    caught,
    catchRate: mutantCodes.length ? caught / mutantCodes.length : 0,
  };
}
