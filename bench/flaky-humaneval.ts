/**
 * `npm run bench:flaky` — the oracle's flaky check on HumanEval's own assertions.
 *
 * Every `assert candidate(...)` line of a task's official check that the assertion parser admits
 * is judged, with one run of the code and with two (the default), against
 *  (1) the canonical solution: a deterministic function, where any `flaky` verdict is a false alarm;
 *  (2) the canonical solution behind a coin flip: each call returns the right value or a wrong one
 *      with probability 1/2, the behaviour of code that depends on random numbers, the clock or a
 *      set's order. With one run such code passes about half of the tests it should fail.
 * Reads ../shared/data/HumanEval.jsonl.gz (or --data PATH); writes bench/results/flaky-humaneval.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAssertionLines } from '../src/core/tests/assertions';
import { readCodeTasks, requireDataFile, type CodeTask } from '../src/core/eval/datasets';
import { findPackageRoot } from '../src/core/resources';
import { runAssertions } from '../src/core/sandbox/index';
import { summarize } from '../src/core/sandbox/run';
import type { TestStatus, TestVerdict } from '../src/core/sandbox/types';
import { benchMachine } from './machine';

const root = findPackageRoot();
const args = process.argv.slice(2);
const at = args.indexOf('--data');
const dataPath = at >= 0 ? args[at + 1] : path.join(root, '..', 'shared', 'data', 'HumanEval.jsonl.gz');

/** The official check's top-level assertion lines, about the function itself. */
function officialLines(task: CodeTask): string[] {
  return task.officialTest
    .split('\n')
    .filter((l) => /^ {4}assert candidate\(/.test(l))
    .map((l) => l.trim().replaceAll('candidate(', `${task.entryPoint}(`));
}

/** The function, wrapped: half of its calls return a value that is not the right one. */
function coinFlip(task: CodeTask): string {
  const f = task.entryPoint;
  return `${task.referenceCode}

import random as _flip_random
_flip_right = ${f}

def _flip_wrong(r):
    if isinstance(r, bool):
        return not r
    if isinstance(r, (int, float)):
        return r + 1
    if isinstance(r, str):
        return r + "?"
    if isinstance(r, list):
        return r + [None]
    if isinstance(r, tuple):
        return r + (None,)
    return [r]

def ${f}(*args, **kwargs):
    r = _flip_right(*args, **kwargs)
    return r if _flip_random.random() < 0.5 else _flip_wrong(r)
`;
}

/** One arm's verdicts and the seconds its sandbox runs took. */
interface Arm {
  verdicts: TestVerdict[];
  seconds: number;
}

const newArm = (): Arm => ({ verdicts: [], seconds: 0 });

/** The verdicts counted by status, with the arm's seconds. */
function counted(arm: Arm) {
  const { durationMs: _unused, ...counts } = summarize(arm.verdicts, Date.now());
  return { ...counts, seconds: Math.round(arm.seconds * 10) / 10 };
}

async function main(): Promise<number> {
  requireDataFile(dataPath, 'tests');
  const { items } = readCodeTasks(dataPath);
  const arms = {
    canonical: { runs1: newArm(), runs2: newArm() },
    coinFlip: { runs1: newArm(), runs2: newArm() },
  };
  const falseAlarms: { task: string; output: string }[] = [];
  let tasks = 0;
  let tests = 0;
  for (const task of items) {
    const { tests: admitted } = await parseAssertionLines(
      officialLines(task).join('\n'),
      'python',
      task.entryPoint,
    );
    if (!admitted.length) continue;
    tasks++;
    tests += admitted.length;
    for (const [arm, code] of [
      ['canonical', task.referenceCode],
      ['coinFlip', coinFlip(task)],
    ] as const) {
      for (const runs of [1, 2] as const) {
        const started = Date.now();
        const r = await runAssertions({ language: 'python', code, tests: admitted, runs, timeoutMs: 10_000 });
        const into = arms[arm][`runs${runs}`];
        into.seconds += (Date.now() - started) / 1000;
        into.verdicts.push(...r.verdicts);
        for (const v of r.verdicts)
          if (arm === 'canonical' && v.status === 'flaky')
            falseAlarms.push({ task: task.id, output: v.output.slice(0, 300) });
      }
    }
    process.stderr.write(`\r${tasks} tasks, ${tests} assertions`);
  }
  process.stderr.write('\n');
  const counts = {
    canonical: { runs1: counted(arms.canonical.runs1), runs2: counted(arms.canonical.runs2) },
    coinFlip: { runs1: counted(arms.coinFlip.runs1), runs2: counted(arms.coinFlip.runs2) },
  };
  const share = (c: Record<TestStatus, number>, k: TestStatus) => Math.round((1000 * c[k]) / tests) / 1000;
  const result = {
    benchmark: 'flaky-humaneval',
    command: 'npm run bench:flaky',
    date: new Date().toISOString(),
    machine: benchMachine(),
    what: "HumanEval's top-level `assert candidate(...)` lines that the assertion parser admits, judged by the oracle with one run of the code and with two, against the canonical solution and against the canonical solution behind a coin flip (each call right or wrong with probability 1/2)",
    tasks,
    assertions: tests,
    arms: counts,
    canonicalFalseAlarms: falseAlarms,
    coinFlipPassShare: {
      runs1: share(counts.coinFlip.runs1, 'passed'),
      runs2: share(counts.coinFlip.runs2, 'passed'),
    },
    coinFlipFlakyShare: share(counts.coinFlip.runs2, 'flaky'),
    secondRunSeconds: Math.round((counts.canonical.runs2.seconds - counts.canonical.runs1.seconds) * 10) / 10,
  };
  const out = path.join(root, 'bench', 'results', 'flaky-humaneval.json');
  fs.writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
  console.log(
    `${tasks} tasks, ${tests} assertions. Canonical: ${falseAlarms.length} flagged flaky. Coin flip: ${result.coinFlipPassShare.runs1} passed with one run, ${result.coinFlipPassShare.runs2} with two (${result.coinFlipFlakyShare} flaky). The second run cost ${result.secondRunSeconds} s over all tasks. Wrote ${path.relative(root, out)}.`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
