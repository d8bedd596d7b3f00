/** One batch of whole test files in one confined process (the in-process path of run.ts). */
import { confinement, type Confinement } from './isolation';
import { dropEmptyCaptures, parseJunit, type JunitCase } from './junit';
import { launch, stageRun, unstage } from './launch';
import { interpreterPaths } from './mounts';
import type { ProcessEnd } from './process';
import { caseIndex, pytestArgs, pythonStatus, pythonSuiteFiles } from './python';
import { jsStatus, jsSuiteFiles, nodeTestArgs } from './javascript';
import { DEFAULT_DISK_MB, type SandboxRequest, type TestStatus, type TestVerdict } from './types';

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
  const memoryMb = request.memoryMb ?? 512;
  const outputCap = request.outputCapBytes ?? 4096;
  const isPython = request.language === 'python';
  const interpreter = isPython ? python : process.execPath;
  const readOnly = interpreterPaths(interpreter, isPython ? 'python' : 'node');

  return async (indexes: number[], limitMs: number): Promise<BatchOutcome> => {
    const tests = indexes.map((i) => request.tests[i]);
    const suite = isPython
      ? pythonSuiteFiles(request.code, tests)
      : jsSuiteFiles(request.language, request.code, tests);
    const run = stageRun(suite.files);
    const report: string[] = [];
    let inProgress: number | undefined;
    let kill: () => void = () => undefined;
    let watchdog: NodeJS.Timeout | undefined;
    // pytest's conftest says when each test starts; the watchdog gives it its limit, then kills.
    const onChannelLine = (line: string) => {
      const start = /^\{"start": "(.*)"\}$/.exec(line);
      if (!start) return void report.push(line);
      const local = /test_(\d{4})/.exec(start[1]);
      inProgress = local ? indexes[Number(local[1])] : undefined;
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
      for (const c of parseJunit(report.join('\n'))) {
        if (isPython) {
          const local = caseIndex(c);
          if (local !== undefined) put(local, pythonStatus(c), c);
        } else {
          const fileMatch = /test_(\d{4})\.(?:cjs|mjs)$/.exec(c.name);
          const local = fileMatch ? Number(fileMatch[1]) : tests.findIndex((t) => t.name === c.name);
          if (local >= 0) put(local, jsStatus(c, !!fileMatch), c);
        }
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
