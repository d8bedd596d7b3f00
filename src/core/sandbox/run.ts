import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { findPackageRoot } from '../resources';
import { confinement } from './isolation';
import { dropEmptyCaptures, parseJunit, type JunitCase } from './junit';
import { caseIndex, pytestArgs, pythonStatus, writePythonSuite } from './python';
import { jsStatus, nodeTestArgs, writeJsSuite } from './javascript';
import {
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

function cap(text: string, bytes: number): string {
  return text.length <= bytes
    ? text
    : `${text.slice(0, bytes)}\n… (${text.length - bytes} more characters cut)`;
}

interface ProcessOutcome {
  timedOut: boolean;
  output: string;
}

/** Runs one confined process; past the suite limit its whole process group is killed. */
async function runConfined(
  cmd: string[],
  cwd: string,
  env: Record<string, string>,
  limitMs: number,
  outputCap: number,
  signal?: AbortSignal,
): Promise<ProcessOutcome> {
  const { execa } = await import('execa');
  const child = execa(cmd[0], cmd.slice(1), {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
    extendEnv: false,
    reject: false,
    detached: true,
    all: true,
    stdin: 'ignore',
    maxBuffer: outputCap * 16,
    cancelSignal: signal,
  });
  let timedOut = false;
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, limitMs);
  const onAbort = () => killGroup();
  signal?.addEventListener('abort', onAbort);
  try {
    const result = await child;
    return { timedOut, output: String(result.all ?? '') };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    killGroup();
  }
}

/**
 * Runs the tests against the code in a fresh temporary folder, confined (see isolation.ts), and
 * returns one verdict per test. Tests that never report (the process died or hit the suite
 * limit) are run again one by one, so a single hostile test cannot hide the others' results.
 * Throws SandboxError only when the sandbox itself cannot work.
 */
export async function runSuite(request: SandboxRequest): Promise<SuiteResult> {
  const started = Date.now();
  const timeoutMs = request.timeoutMs ?? 5000;
  const suiteTimeoutMs = request.suiteTimeoutMs ?? 60_000;
  const memoryMb = request.memoryMb ?? 512;
  const outputCap = request.outputCapBytes ?? 4096;
  const jail = confinement();
  const python = request.language === 'python' ? resolvePython(request.pythonPath) : '';
  if (request.language === 'python') checkPytest(python);

  const runBatch = async (indexes: number[], limitMs: number): Promise<Map<number, TestVerdict>> => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-sandbox-'));
    try {
      jail.prepare(dir);
      const tests = indexes.map((i) => request.tests[i]);
      let cmd: string[];
      let env: Record<string, string> = {};
      if (request.language === 'python') {
        const files = writePythonSuite(dir, request.code, tests);
        const p = pytestArgs(files, timeoutMs);
        cmd = [python, ...p.args];
        env = p.env;
      } else {
        const files = writeJsSuite(dir, request.language, request.code, tests);
        cmd = [process.execPath, ...nodeTestArgs(files, timeoutMs, memoryMb)];
      }
      for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o666);
      // V8 reserves far more address space than it uses, so node gets a heap cap instead.
      const prefix = jail.prefix(dir, {
        memoryMb: request.language === 'python' ? memoryMb : null,
        processes: 64,
        fileMb: 64,
      });
      const outcome = await runConfined([...prefix, ...cmd], dir, env, limitMs, outputCap, request.signal);
      request.signal?.throwIfAborted();
      const report = path.join(dir, 'report.xml');
      const cases = fs.existsSync(report) ? parseJunit(fs.readFileSync(report, 'utf8')) : [];
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
        });
      };
      if (request.language === 'python') {
        for (const c of cases) {
          const local = caseIndex(c);
          if (local !== undefined) put(local, pythonStatus(c), c);
        }
      } else {
        for (const c of cases) {
          const fileMatch = /test_(\d{4})\.(?:cjs|mjs|mts)$/.exec(c.name);
          const local = fileMatch ? Number(fileMatch[1]) : tests.findIndex((t) => t.name === c.name);
          if (local >= 0) put(local, jsStatus(c, !!fileMatch), c);
        }
      }
      if (outcome.timedOut) {
        for (const [local] of tests.entries()) {
          const i = indexes[local];
          if (!verdicts.has(i) && indexes.length === 1) {
            verdicts.set(i, {
              name: request.tests[i].name,
              status: 'timeout',
              output: cap(
                `The test did not finish within ${limitMs} ms and was killed.\n${outcome.output}`,
                outputCap,
              ),
              durationMs: limitMs,
            });
          }
        }
      } else if (indexes.length === 1 && !verdicts.has(indexes[0])) {
        verdicts.set(indexes[0], {
          name: tests[0].name,
          status: 'error',
          output: cap(`The test process ended without a verdict.\n${outcome.output}`, outputCap),
          durationMs: 0,
        });
      }
      return verdicts;
    } finally {
      await jail.release(dir);
      fs.rmSync(dir, { recursive: true, force: true });
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
      },
  );
  const summary = {
    passed: 0,
    failed: 0,
    error: 0,
    timeout: 0,
    uncollectable: 0,
    total: ordered.length,
    durationMs: Date.now() - started,
  };
  for (const v of ordered) summary[v.status]++;
  return { verdicts: ordered, summary, isolation: jail.report };
}
