/**
 * The oracle runner: assertion tests judged in the host. The code under test runs in one
 * sandbox and only evaluates the calls; the expected values are evaluated in a second sandbox
 * that never loads that code; the host compares the two with the language's equality.
 */
import type { AssertionTest } from '../assertionTest';
import { confinement, type Limits } from '../isolation';
import { launch, stageRun, unstage } from '../launch';
import { interpreterPaths, resolveExecutable } from '../mounts';
import { cap, resolvePython, summarize } from '../run';
import { ESM_SYNTAX } from '../javascript';
import { runnableExpression, runnableJs } from '../typescript';
import { DEFAULT_DISK_MB, type SandboxRun, type SuiteResult, type TestVerdict } from '../types';
import {
  callOutcome,
  completed,
  expectedOutcome,
  flakyJudgement,
  judge,
  lastName,
  type CallOutcome,
  type ExpectedOutcome,
} from './judge';
import { JS_CALLS_HARNESS, JS_ENCODER, JS_EXPECTED_HARNESS, jsSubject } from './jsHarness';
import { PY_CALLS_HARNESS, PY_ENCODER, PY_EXPECTED_HARNESS } from './pythonHarness';
import { runResumable, type ResumableResult } from './resumable';
import { SANDBOX_DEFAULTS } from '../limits';

export interface AssertionRequest extends SandboxRun {
  tests: AssertionTest[];
  /**
   * How many times the code under test runs the calls (default DEFAULT_CALL_RUNS), each run in a
   * fresh sandbox; a test whose call completes with different verdicts is `flaky`. 1 turns it off.
   */
  runs?: number;
  /**
   * Stop running the code after this many calls ran out of time; the calls left are timeouts
   * that say so (resumable.ts). For generated implementations, whose loops would otherwise cost
   * the per-call limit on every test; never for the user's function. Absent: no cap.
   */
  maxTimeouts?: number;
}

/**
 * Two runs: the smallest number that shows a result changing from run to run. Each is a fresh
 * process, so Python hashes strings with a new seed and random numbers start elsewhere.
 */
export const DEFAULT_CALL_RUNS = 2;

/** Bytes of results one run may send (values of every call together). */
const CHANNEL_CAP_BYTES = 64 * 1024 * 1024;

interface Harness {
  interpreter: string;
  readOnly: string[];
  files: Record<string, string>;
  command: (inDir: string, start: number) => string[];
}

function harnesses(
  req: AssertionRequest,
  timeoutMs: number,
  memoryMb: number,
): { calls: Harness; expected: Harness; expectedItems: number[] } {
  // `is` checks compare with a literal singleton in the host; every other expected value is
  // evaluated, and the exception classes a raises test names are resolved, out of the code's reach.
  const raises = (t: AssertionTest) => (t.check === 'raises' ? (t.exceptions ?? []).map(lastName) : []);
  const withExpected = req.tests
    .map((t, i) => ((t.expected && t.check !== 'is' && t.check !== 'isNot') || raises(t).length ? i : -1))
    .filter((i) => i >= 0);
  if (req.language === 'python') {
    const python = resolveExecutable(resolvePython(req.pythonPath));
    const readOnly = interpreterPaths(python, 'python');
    const run = (script: string) => (inDir: string, start: number) => [
      python,
      '-I',
      '-B',
      `${inDir}/${script}`,
      inDir,
      String(start),
      String(timeoutMs / 1000),
    ];
    return {
      calls: {
        interpreter: python,
        readOnly,
        files: {
          'target.py': req.code,
          'encode.py': PY_ENCODER,
          'calls.py': PY_CALLS_HARNESS,
          'calls.json': JSON.stringify(req.tests.map((t) => t.call)),
        },
        command: run('calls.py'),
      },
      expected: {
        interpreter: python,
        readOnly,
        files: {
          'encode.py': PY_ENCODER,
          'expected.py': PY_EXPECTED_HARNESS,
          'expected.json': JSON.stringify(
            withExpected.map((i, k) => ({
              i: k,
              expected: req.tests[i].expected,
              rel: req.tests[i].tolerance?.rel,
              abs: req.tests[i].tolerance?.abs,
              ...(raises(req.tests[i]).length ? { raises: raises(req.tests[i]) } : {}),
            })),
          ),
        },
        command: run('expected.py'),
      },
      expectedItems: withExpected,
    };
  }
  const node = process.execPath;
  const readOnly = interpreterPaths(node, 'node');
  const code = runnableJs(req.code, req.language);
  const subject = req.language === 'typescript' || ESM_SYNTAX.test(code) ? 'subject.mjs' : 'subject.cjs';
  const calls = req.tests.map((t) => ({
    call: runnableExpression(t.call, req.language),
    awaits: /^\s*await\b/.test(t.call),
  }));
  const heap = `--max-old-space-size=${memoryMb}`;
  return {
    calls: {
      interpreter: node,
      readOnly,
      files: {
        [subject]: jsSubject(code, calls),
        'encode.mjs': JS_ENCODER,
        'calls.mjs': JS_CALLS_HARNESS,
        'calls.json': JSON.stringify(calls),
      },
      command: (inDir, start) => [
        node,
        heap,
        `${inDir}/calls.mjs`,
        inDir,
        String(start),
        String(timeoutMs),
        subject,
      ],
    },
    expected: {
      interpreter: node,
      readOnly,
      files: {
        'encode.mjs': JS_ENCODER,
        'expected.mjs': JS_EXPECTED_HARNESS,
        'expected.json': JSON.stringify(
          withExpected.map((i, k) =>
            raises(req.tests[i]).length
              ? { i: k, raises: raises(req.tests[i]) }
              : { i: k, expected: runnableExpression(req.tests[i].expected, req.language) },
          ),
        ),
      },
      command: (inDir, start) => [node, heap, `${inDir}/expected.mjs`, inDir, String(start)],
    },
    expectedItems: withExpected,
  };
}

export async function runAssertions(req: AssertionRequest): Promise<SuiteResult> {
  const started = Date.now();
  const timeoutMs = req.timeoutMs ?? SANDBOX_DEFAULTS.perTestTimeoutMs;
  const deadline = started + (req.suiteTimeoutMs ?? SANDBOX_DEFAULTS.suiteTimeoutMs);
  const memoryMb = req.memoryMb ?? SANDBOX_DEFAULTS.memoryMb;
  const outputCap = req.outputCapBytes ?? 4096;
  const jail = confinement();
  const limits: Limits = {
    memoryMb: req.language === 'python' ? memoryMb : null,
    sandboxMemoryMb: memoryMb,
    cpuCores: req.cpuCores,
    processes: 64,
    fileMb: 64,
    diskMb: req.diskMb ?? DEFAULT_DISK_MB,
  };
  const { calls, expected, expectedItems } = harnesses(req, timeoutMs, memoryMb);
  const runHarness = async (h: Harness, count: number, maxTimeouts?: number) => {
    const run = stageRun(h.files);
    try {
      return await runResumable({
        count,
        maxTimeouts,
        perItemMs: timeoutMs,
        deadline,
        signal: req.signal,
        launchAt: (start, limitMs, onLine, onStart) =>
          launch({
            jail,
            run,
            limits,
            readOnly: h.readOnly,
            command: (paths) => h.command(paths.inDir, start),
            limitMs,
            outputCapBytes: outputCap * 4,
            channelCapBytes: CHANNEL_CAP_BYTES,
            onChannelLine: onLine,
            onStart,
            signal: req.signal,
          }),
      });
    } finally {
      unstage(run);
    }
  };
  // The code's runs come one after another (each has the machine's cores to itself, as one run
  // had before); the expected values' sandbox shares nothing with them and runs alongside.
  const runs = Math.max(1, Math.floor(req.runs ?? DEFAULT_CALL_RUNS));
  const runCalls = async () => {
    const all = [await runHarness(calls, req.tests.length, req.maxTimeouts)];
    // Code stopped for its timeouts is not run again: a second run would only repeat them.
    while (all.length < runs && Date.now() < deadline && !req.signal?.aborted && !all[0].cappedAfterTimeouts)
      all.push(await runHarness(calls, req.tests.length, req.maxTimeouts));
    return all;
  };
  const [callRuns, expectedRun] = await Promise.all([
    runCalls(),
    expectedItems.length ? runHarness(expected, expectedItems.length) : undefined,
  ]);
  req.signal?.throwIfAborted();
  const expectedByTest = new Map<number, ExpectedOutcome>();
  expectedItems.forEach((testIndex, k) => {
    const rec = expectedRun?.records.get(k);
    const failure = expectedRun?.failures.get(k);
    expectedByTest.set(
      testIndex,
      rec
        ? expectedOutcome(rec.record)
        : { error: `the expected value could not be evaluated: ${failure?.detail ?? 'no result'}` },
    );
  });
  const outcomeOf = (run: ResumableResult, i: number): CallOutcome => {
    const rec = run.records.get(i);
    return rec
      ? callOutcome(rec.record, timeoutMs)
      : (run.failures.get(i) ?? { kind: 'crashed', detail: 'No result came back for this call.' });
  };
  const verdicts: TestVerdict[] = req.tests.map((test, i) => {
    const rec = callRuns[0].records.get(i);
    const outcome = outcomeOf(callRuns[0], i);
    let { status, output } = judge(test, outcome, expectedByTest.get(i));
    // Only calls that ran to an end in both runs are compared: a later run cut short by the
    // suite's deadline says nothing about the test.
    for (let k = 1; k < callRuns.length; k++) {
      const again = outcomeOf(callRuns[k], i);
      if (!completed(outcome) || !completed(again)) continue;
      const other = judge(test, again, expectedByTest.get(i));
      if (other.status !== status) {
        ({ status, output } = flakyJudgement({ status, output }, other, k + 1));
        break;
      }
    }
    return {
      name: test.name,
      status,
      output: cap(output, outputCap),
      durationMs: rec?.durationMs ?? 0,
      inProcess: false,
    };
  });
  const capped = callRuns[0].cappedAfterTimeouts;
  return {
    verdicts,
    summary: summarize(verdicts, started),
    isolation: jail.report,
    inProcess: false,
    ...(capped ? { timeCapped: capped } : {}),
  };
}
