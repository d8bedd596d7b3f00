/** One batch of whole test files in one confined process (the in-process path of run.ts). */
import { confinement, type Confinement } from './isolation';
import { dropEmptyCaptures, parseJunit, type JunitCase } from './junit';
import { launch, stageRun, unstage } from './launch';
import { interpreterPaths } from './mounts';
import type { ProcessEnd } from './process';
import { caseIndex, nodeIndex, pytestArgs, pythonStatus, pythonSuiteFiles } from './python';
import { jsNodeId, jsStatus, jsSuiteFiles, nodeTestArgs } from './javascript';
import { DEFAULT_DISK_MB, type SandboxRequest, type TestStatus, type TestVerdict } from './types';
import { SANDBOX_DEFAULTS } from './limits';

/** Bytes of JUnit report the channel may carry before the run is stopped. */
export const REPORT_CAP_BYTES = 8 * 1024 * 1024;
/** Time a test may run past its own limit before the host's watchdog kills the process. */
const WATCHDOG_GRACE_MS = 3000;

export interface BatchOutcome {
  verdicts: Map<number, TestVerdict>;
  /** The test that had started and not finished when the process ended (pytest says when each starts). */
  inProgress?: number;
  end: ProcessEnd;
}

const NO_CASE: JunitCase = {
  name: '',
  classname: '',
  timeSeconds: 0,
  outcome: 'error',
  message: '',
  details: '',
  output: '',
};

function cut(text: string, bytes: number): string {
  return text.length <= bytes
    ? text
    : `${text.slice(0, bytes)}\n… (${text.length - bytes} more characters cut)`;
}

export function batchRunner(request: SandboxRequest, python: string, timeoutMs: number) {
  const jail = confinement();
  return { jail, run: batchRun(jail, request, python, timeoutMs) };
}

function batchRun(jail: Confinement, request: SandboxRequest, python: string, timeoutMs: number) {
  const memoryMb = request.memoryMb ?? SANDBOX_DEFAULTS.memoryMb;
  const outputCap = request.outputCapBytes ?? 4096;
  const isPython = request.language === 'python';
  const interpreter = isPython ? python : process.execPath;
  const readOnly = interpreterPaths(interpreter, isPython ? 'python' : 'node');

  return async (indexes: number[], limitMs: number): Promise<BatchOutcome> => {
    const tests = indexes.map((i) => request.tests[i]);
    const js = isPython ? undefined : jsSuiteFiles(request.language, request.code, tests);
    const suite = js ?? pythonSuiteFiles(request.code, tests);
    const run = stageRun(suite.files);
    const report: string[] = [];
    let inProgress: number | undefined;
    let kill: () => void = () => undefined;
    let watchdog: NodeJS.Timeout | undefined;
    // pytest's conftest says when each test starts; the watchdog gives it its limit, then kills.
    const onChannelLine = (line: string) => {
      const start = /^\{"start": "(.*)"\}$/.exec(line);
      if (!start) return void report.push(line);
      const local = isPython ? nodeIndex(start[1], tests) : undefined;
      inProgress = local !== undefined ? indexes[local] : undefined;
      clearTimeout(watchdog);
      watchdog = setTimeout(() => kill(), timeoutMs + WATCHDOG_GRACE_MS);
    };
    try {
      const end = await launch({
        jail,
        run,
        // V8 reserves far more address space than it uses, so node gets a heap cap instead.
        limits: {
          memoryMb: isPython ? memoryMb : null,
          sandboxMemoryMb: memoryMb,
          cpuCores: request.cpuCores,
          processes: 64,
          fileMb: 64,
          diskMb: request.diskMb ?? DEFAULT_DISK_MB,
        },
        readOnly,
        command: (paths) =>
          isPython
            ? [python, ...pytestArgs(paths.inDir, suite.testFiles, timeoutMs).args]
            : [interpreter, ...nodeTestArgs(paths.inDir, suite.testFiles, timeoutMs, memoryMb)],
        env: (paths) => (isPython ? pytestArgs(paths.inDir, suite.testFiles, timeoutMs).env : {}),
        limitMs,
        outputCapBytes: outputCap * 16,
        channelCapBytes: REPORT_CAP_BYTES,
        onChannelLine,
        onStart: (k) => (kill = k),
        channelFd: isPython ? 3 : 1,
        signal: request.signal,
      });
      clearTimeout(watchdog);
      request.signal?.throwIfAborted();
      const verdicts = new Map<number, TestVerdict>();
      const put = (local: number, status: TestStatus, c: JunitCase) => {
        const i = indexes[local];
        if (i === undefined || verdicts.has(i)) return;
        const output = dropEmptyCaptures([c.message, c.details, c.output].filter(Boolean).join('\n'));
        verdicts.set(i, {
          name: request.tests[i].name,
          status,
          output: cut(output, outputCap),
          durationMs: Math.round(c.timeSeconds * 1000),
          inProcess: true,
        });
      };
      for (const [local, reason] of js?.unreadable ?? [])
        put(local, 'uncollectable', { ...NO_CASE, message: reason });
      // Each result goes to its test by node id; where a test has several (parametrized, or a
      // duplicate the code registered), one that did not pass is never masked by one that did.
      const results = new Map<number, { status: TestStatus; c: JunitCase }[]>();
      for (const c of parseJunit(report.join('\n'))) {
        let local: number | undefined;
        let status: TestStatus;
        if (isPython) {
          local = caseIndex(c, tests);
          status = pythonStatus(c);
        } else {
          const fileMatch = /test_(\d{4})\.(?:cjs|mjs)$/.exec(c.name);
          local = fileMatch
            ? Number(fileMatch[1])
            : suite.testFiles.findIndex((file, k) => c.name === jsNodeId(file, tests[k].name));
          status = jsStatus(c, !!fileMatch);
        }
        if (local === undefined || local < 0) continue;
        const list = results.get(local) ?? [];
        list.push({ status, c });
        results.set(local, list);
      }
      for (const [local, list] of results) {
        const shown = list.find((r) => r.status !== 'passed') ?? list[0];
        put(local, shown.status, shown.c);
      }
      return {
        verdicts,
        inProgress: inProgress !== undefined && !verdicts.has(inProgress) ? inProgress : undefined,
        end,
      };
    } finally {
      clearTimeout(watchdog);
      unstage(run);
    }
  };
}
