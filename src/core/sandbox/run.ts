import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { findPackageRoot } from '../resources';
import { batchRunner, REPORT_CAP_BYTES } from './batch';
import { resolveExecutable } from './mounts';
import {
  SandboxError,
  type SandboxRequest,
  type SuiteResult,
  type TestStatus,
  type TestVerdict,
} from './types';
import { SANDBOX_DEFAULTS } from './limits';

const checkedPythons = new Map<string, string | null>();

/** The Python that runs tests: the request's, $STEPWISE_PYTHON, the project venv, then python3. */
export function resolvePython(requested?: string): string {
  if (requested) return realInterpreter(requested);
  if (process.env.STEPWISE_PYTHON) return realInterpreter(process.env.STEPWISE_PYTHON);
  try {
    const venv = path.join(findPackageRoot(), '.venv', 'bin', 'python');
    if (fs.existsSync(venv)) return venv;
  } catch {
    // Not running from a checkout: fall through to python3.
  }
  return realInterpreter('python3');
}

const realInterpreters = new Map<string, string>();

/**
 * The interpreter binary behind a command. A `python3` found on PATH is often a launcher script
 * (a pyenv or asdf shim) that needs the user's home and tools, none of which the sandbox mounts:
 * every test would then "not collect" and be blamed on the user's function. Python itself knows
 * its binary (sys.executable), so ask it once, outside the sandbox; keep the command if it cannot say.
 */
export function realInterpreter(command: string): string {
  let real = realInterpreters.get(command);
  if (real === undefined) {
    const r = spawnSync(command, ['-I', '-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    const printed = r.status === 0 ? r.stdout.trim() : '';
    real = printed && path.isAbsolute(printed) && fs.existsSync(printed) ? printed : command;
    realInterpreters.set(command, real);
  }
  return real;
}

function checkPytest(python: string): void {
  if (!checkedPythons.has(python)) {
    const r = spawnSync(python, ['-c', 'import pytest'], { encoding: 'utf8', timeout: 30_000 });
    checkedPythons.set(
      python,
      r.error ? `cannot be started (${r.error.message})` : r.status === 0 ? null : 'has no pytest',
    );
  }
  const problem = checkedPythons.get(python);
  if (problem) {
    throw new SandboxError(
      `The Python interpreter "${python}" ${problem}.`,
      `Install pytest into it (${python} -m pip install pytest) or set stepwise.python.interpreterPath.`,
    );
  }
}

export function cap(text: string, bytes: number): string {
  return text.length <= bytes
    ? text
    : `${text.slice(0, bytes)}\n… (${text.length - bytes} more characters cut)`;
}

/**
 * Runs whole test files (tests a person wrote: pytest functions, node:test calls) against the code
 * in a fresh confined process (see isolation.ts), and returns one verdict per test, all within
 * `suiteTimeoutMs`. pytest says over the results channel when each test starts, so a test that
 * runs past its limit (even one that ignores SIGALRM) is killed by the host's watchdog, judged a
 * timeout, and the tests after it go on in a fresh process; a batch that ends without saying
 * (node's runner, a crash before any test) is split into single tests. These verdicts come from
 * inside the process under test, which can rewrite them: they carry `inProcess: true` and are
 * never a training reward (assertion tests through the oracle runner are; see README.md here).
 * Throws SandboxError only when the sandbox itself cannot work.
 */
export async function runSuite(request: SandboxRequest): Promise<SuiteResult> {
  const started = Date.now();
  const timeoutMs = request.timeoutMs ?? SANDBOX_DEFAULTS.perTestTimeoutMs;
  const suiteTimeoutMs = request.suiteTimeoutMs ?? SANDBOX_DEFAULTS.suiteTimeoutMs;
  const deadline = started + suiteTimeoutMs;
  const python = request.language === 'python' ? resolveExecutable(resolvePython(request.pythonPath)) : '';
  if (request.language === 'python') checkPytest(python);
  const { jail, run: batch } = batchRunner(request, python, timeoutMs);
  const verdicts = new Map<number, TestVerdict>();
  const verdict = (i: number, status: TestStatus, output: string, durationMs = 0) =>
    verdicts.set(i, {
      name: request.tests[i].name,
      status,
      output: cap(output, request.outputCapBytes ?? 4096),
      durationMs,
      inProcess: true,
    });
  let pending = request.tests.map((_, i) => i);
  let alone = false;
  while (pending.length) {
    request.signal?.throwIfAborted();
    const remaining = deadline - Date.now();
    if (remaining < 500) {
      for (const i of pending)
        verdict(i, 'timeout', `Not run: the suite used its ${suiteTimeoutMs} ms before this test's turn.`);
      break;
    }
    const indexes: number[] = alone ? pending.slice(0, 1) : pending;
    // Without start events (node's runner) a batch gets half of what is left, so that the tests
    // of a batch that never reports can still run one by one.
    const limit = alone
      ? Math.min(remaining, timeoutMs + 15_000)
      : request.language === 'python'
        ? remaining
        : Math.max(1000, Math.floor(remaining / 2));
    const round = await batch(indexes, limit);
    for (const [i, v] of round.verdicts) verdicts.set(i, v);
    const stuck: number | undefined = round.inProgress ?? (indexes.length === 1 ? indexes[0] : undefined);
    if (stuck !== undefined && !verdicts.has(stuck)) {
      if (round.end.killedFor === 'watchdog' || round.end.killedFor === 'timeout')
        verdict(
          stuck,
          'timeout',
          `The test did not finish within ${round.end.killedFor === 'watchdog' ? timeoutMs : limit} ms and was killed by the host.\n${round.end.output}`,
          round.end.killedFor === 'watchdog' ? timeoutMs : limit,
        );
      else
        verdict(
          stuck,
          'error',
          `${round.end.killedFor === 'channel-overflow' ? `The test sent more than ${REPORT_CAP_BYTES} bytes of report and was stopped.` : 'The test process ended during this test, without a verdict.'}\n${round.end.output}`,
        );
    }
    const left = pending.filter((i) => !verdicts.has(i));
    // No progress: run the rest one at a time, so one hostile test cannot hide the others.
    alone = left.length === pending.length || (alone && left.length > 0 && stuck === undefined);
    pending = left;
  }
  const ordered = request.tests.map(
    (t, i) =>
      verdicts.get(i) ?? {
        name: t.name,
        status: 'error' as const,
        output: 'No verdict.',
        durationMs: 0,
        inProcess: true,
      },
  );
  return {
    verdicts: ordered,
    summary: summarize(ordered, started),
    isolation: jail.report,
    inProcess: true,
  };
}

export function summarize(verdicts: TestVerdict[], started: number): SuiteResult['summary'] {
  const summary = {
    passed: 0,
    failed: 0,
    error: 0,
    timeout: 0,
    uncollectable: 0,
    flaky: 0,
    total: verdicts.length,
    durationMs: Date.now() - started,
  };
  for (const v of verdicts) summary[v.status]++;
  return summary;
}
