import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { findPackageRoot } from '../resources';
import { confinement } from './isolation';
import { dropEmptyCaptures, parseJunit, type JunitCase } from './junit';
import { launch, stageRun, unstage } from './launch';
import { interpreterPaths, resolveExecutable } from './mounts';
import { caseIndex, pytestArgs, pythonStatus, pythonSuiteFiles } from './python';
import { jsStatus, jsSuiteFiles, nodeTestArgs } from './javascript';
import {
  DEFAULT_DISK_MB,
  SandboxError,
  type SandboxRequest,
  type SuiteResult,
  type TestStatus,
  type TestVerdict,
} from './types';

const checkedPythons = new Map<string, string | null>();

/** The Python that runs tests: the request's, $STEPWISE_PYTHON, the project venv, then python3. */
export function resolvePython(requested?: string): string {
  if (requested) return requested;
  if (process.env.STEPWISE_PYTHON) return process.env.STEPWISE_PYTHON;
  try {
    const venv = path.join(findPackageRoot(), '.venv', 'bin', 'python');
    if (fs.existsSync(venv)) return venv;
  } catch {
    // Not running from a checkout: fall through to python3.
  }
  return 'python3';
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

/** Bytes of JUnit report the channel may carry before the run is stopped. */
const REPORT_CAP_BYTES = 8 * 1024 * 1024;

/**
 * Runs whole test files (tests a person wrote: pytest functions, node:test calls) against the code
 * in a fresh confined process (see isolation.ts), and returns one verdict per test. Tests that
 * never report (the process died or hit the suite limit) are run again one by one, so a single
 * hostile test cannot hide the others' results. These verdicts come from inside the process under
 * test, which can rewrite them: they carry `inProcess: true` and are never a training reward
 * (assertion tests through the oracle runner are; see README.md in this folder).
 * Throws SandboxError only when the sandbox itself cannot work.
 */
export async function runSuite(request: SandboxRequest): Promise<SuiteResult> {
  const started = Date.now();
  const timeoutMs = request.timeoutMs ?? 5000;
  const suiteTimeoutMs = request.suiteTimeoutMs ?? 60_000;
  const memoryMb = request.memoryMb ?? 512;
  const outputCap = request.outputCapBytes ?? 4096;
  const jail = confinement();
  const python = request.language === 'python' ? resolveExecutable(resolvePython(request.pythonPath)) : '';
  if (request.language === 'python') checkPytest(python);
  const interpreter = request.language === 'python' ? python : process.execPath;
  const readOnly = interpreterPaths(interpreter, request.language === 'python' ? 'python' : 'node');

  const runBatch = async (indexes: number[], limitMs: number): Promise<Map<number, TestVerdict>> => {
    const tests = indexes.map((i) => request.tests[i]);
    const suite =
      request.language === 'python'
        ? pythonSuiteFiles(request.code, tests)
        : jsSuiteFiles(request.language, request.code, tests);
    const run = stageRun(suite.files);
    const report: string[] = [];
    try {
      const outcome = await launch({
        jail,
        run,
        // V8 reserves far more address space than it uses, so node gets a heap cap instead.
        limits: {
          memoryMb: request.language === 'python' ? memoryMb : null,
          processes: 64,
          fileMb: 64,
          diskMb: request.diskMb ?? DEFAULT_DISK_MB,
        },
        readOnly,
        command: (paths) =>
          request.language === 'python'
            ? [python, ...pytestArgs(paths.inDir, suite.testFiles, timeoutMs).args]
            : [interpreter, ...nodeTestArgs(paths.inDir, suite.testFiles, timeoutMs, memoryMb)],
        env: (paths) =>
          request.language === 'python' ? pytestArgs(paths.inDir, suite.testFiles, timeoutMs).env : {},
        limitMs,
        outputCapBytes: outputCap * 16,
        channelCapBytes: REPORT_CAP_BYTES,
        onChannelLine: (line) => report.push(line),
        channelFd: request.language === 'python' ? 3 : 1,
        signal: request.signal,
      });
      request.signal?.throwIfAborted();
      const cases = parseJunit(report.join('\n'));
      const verdicts = new Map<number, TestVerdict>();
      const put = (local: number, status: TestStatus, c: JunitCase) => {
        const i = indexes[local];
        if (i === undefined || verdicts.has(i)) return;
        const output = dropEmptyCaptures([c.message, c.details, c.output].filter(Boolean).join('\n'));
        verdicts.set(i, {
          name: request.tests[i].name,
          status,
          output: cap(output, outputCap),
          durationMs: Math.round(c.timeSeconds * 1000),
          inProcess: true,
        });
      };
      if (request.language === 'python') {
        for (const c of cases) {
          const local = caseIndex(c);
          if (local !== undefined) put(local, pythonStatus(c), c);
        }
      } else {
        for (const c of cases) {
          const fileMatch = /test_(\d{4})\.(?:cjs|mjs)$/.exec(c.name);
          const local = fileMatch ? Number(fileMatch[1]) : tests.findIndex((t) => t.name === c.name);
          if (local >= 0) put(local, jsStatus(c, !!fileMatch), c);
        }
      }
      const alone = indexes.length === 1 && !verdicts.has(indexes[0]);
      if (alone && outcome.killedFor === 'timeout') {
        verdicts.set(indexes[0], {
          name: tests[0].name,
          status: 'timeout',
          output: cap(
            `The test did not finish within ${limitMs} ms and was killed.\n${outcome.output}`,
            outputCap,
          ),
          durationMs: limitMs,
          inProcess: true,
        });
      } else if (alone) {
        const why =
          outcome.killedFor === 'channel-overflow'
            ? `The test wrote more than ${REPORT_CAP_BYTES} bytes of report and was stopped.`
            : 'The test process ended without a verdict.';
        verdicts.set(indexes[0], {
          name: tests[0].name,
          status: 'error',
          output: cap(`${why}\n${outcome.output}`, outputCap),
          durationMs: 0,
          inProcess: true,
        });
      }
      return verdicts;
    } finally {
      unstage(run);
    }
  };

  const all = request.tests.map((_, i) => i);
  const verdicts = all.length ? await runBatch(all, suiteTimeoutMs) : new Map<number, TestVerdict>();
  const missing = all.filter((i) => !verdicts.has(i));
  for (const i of missing) {
    request.signal?.throwIfAborted();
    // Alone, a test gets its own limit plus start-up time.
    const single = await runBatch([i], Math.min(suiteTimeoutMs, timeoutMs + 15_000));
    for (const [k, v] of single) verdicts.set(k, v);
  }
  const ordered = all.map(
    (i) =>
      verdicts.get(i) ?? {
        name: request.tests[i].name,
        status: 'error' as const,
        output: 'No verdict.',
        durationMs: 0,
        inProcess: true,
      },
  );
  return { verdicts: ordered, summary: summarize(ordered, started), isolation: jail.report, inProcess: true };
}

export function summarize(verdicts: TestVerdict[], started: number): SuiteResult['summary'] {
  const summary = {
    passed: 0,
    failed: 0,
    error: 0,
    timeout: 0,
    uncollectable: 0,
    total: verdicts.length,
    durationMs: Date.now() - started,
  };
  for (const v of verdicts) summary[v.status]++;
  return summary;
}
