/**
 * `npm run bench:humaneval-sandbox` — the sandbox measured on HumanEval.
 *  (1) every canonical solution with its official tests (all must pass);
 *  (2) known-wrong variants (AST mutants of the canonical solutions, made by the product's
 *      python/mutants.py) that the official tests must fail.
 * The five-stage pipeline's tests on HumanEval are scored by `stepwise eval tests` (src/core/eval).
 * Reads ../shared/data/HumanEval.jsonl.gz (or --data PATH); writes bench/results/humaneval-sandbox.json.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { confinement, runSuite } from '../src/core/sandbox/index';
import type { SandboxTest, TestVerdict } from '../src/core/sandbox/types';
import { findPackageRoot } from '../src/core/resources';
import { pythonMutants } from '../src/core/eval/mutants';

interface Problem {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  test: string;
  entry_point: string;
}

const root = findPackageRoot();
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const dataPath = arg('data', path.join(root, '..', 'shared', 'data', 'HumanEval.jsonl.gz'));

/**
 * One candidate with its official tests as a self-contained test module. The sandbox gives every
 * test its own module, so many candidates can share one pytest process without sharing names.
 */
function officialTest(p: Problem, code: string, name: string): SandboxTest {
  return {
    name,
    source: `${code}\n\n${p.test}\n\ndef test_official():\n    check(${p.entry_point})\n`,
  };
}

const BATCH = 16;

function killsByKind(results: { m: { kind: string }; v: TestVerdict }[]) {
  const out: Record<string, { total: number; killed: number }> = {};
  for (const x of results) {
    const k = (out[x.m.kind] ??= { total: 0, killed: 0 });
    k.total++;
    if (x.v.status !== 'passed') k.killed++;
  }
  return out;
}

/** Verdicts of candidates against their official tests, BATCH candidates per sandbox run. */
async function judge(candidates: { p: Problem; code: string }[]): Promise<TestVerdict[]> {
  const batches: { p: Problem; code: string }[][] = [];
  for (let i = 0; i < candidates.length; i += BATCH) batches.push(candidates.slice(i, i + BATCH));
  const results = await pool(batches, Math.max(1, os.cpus().length), (batch) =>
    runSuite({
      language: 'python',
      code: '',
      tests: batch.map((c, i) => officialTest(c.p, c.code, `${c.p.task_id}#${i}`)),
      timeoutMs: 10_000,
      suiteTimeoutMs: 120_000,
    }),
  );
  return results.flatMap((r) => r.verdicts);
}

async function pool<T, R>(items: T[], width: number, work: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]);
      }
    }),
  );
  return out;
}

async function main(): Promise<number> {
  if (!fs.existsSync(dataPath)) {
    console.error(
      `HumanEval is not at ${dataPath}. Pass --data PATH to HumanEval.jsonl.gz (MIT licence; not shipped with Stepwise).`,
    );
    return 2;
  }
  const problems: Problem[] = zlib
    .gunzipSync(fs.readFileSync(dataPath))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const started = Date.now();
  const canonicalVerdicts = await judge(problems.map((p) => ({ p, code: p.prompt + p.canonical_solution })));
  const canonical = problems.map((p, i) => ({ p, v: canonicalVerdicts[i] }));
  const failedCanonical = canonical
    .filter((c) => c.v.status !== 'passed')
    .map((c) => ({ task: c.p.task_id, status: c.v.status, output: c.v.output.slice(0, 300) }));
  console.log(
    `(1) canonical solutions: ${problems.length - failedCanonical.length}/${problems.length} pass their official tests`,
  );

  // (2) mutants: three per problem, as this benchmark has always measured
  const mutants = await pythonMutants(
    Object.fromEntries(problems.map((p) => [p.task_id, p.prompt + p.canonical_solution])),
    { limit: 3 },
  );
  const jobs = problems.flatMap((p) => (mutants[p.task_id] ?? []).map((m, i) => ({ p, m, i })));
  const mutantVerdicts = await judge(jobs.map((j) => ({ p: j.p, code: j.m.code })));
  const mutantResults = jobs.map((j, k) => ({ ...j, v: mutantVerdicts[k] }));
  const killed = mutantResults.filter((x) => x.v.status !== 'passed');
  const survivors = mutantResults
    .filter((x) => x.v.status === 'passed')
    .map((x) => ({ task: x.p.task_id, kind: x.m.kind, mutant: x.i }));
  console.log(
    `(2) mutants: ${killed.length}/${mutantResults.length} killed by the official tests (${survivors.length} survive: equivalent or untested)`,
  );

  const result = {
    machine: {
      cpu: os.cpus()[0]?.model,
      cores: os.cpus().length,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    isolation: confinement().report.summary,
    canonical: {
      problems: problems.length,
      passed: problems.length - failedCanonical.length,
      failed: failedCanonical,
    },
    mutants: {
      byKind: killsByKind(mutantResults),
      total: mutantResults.length,
      killed: killed.length,
      killRate: killed.length / Math.max(1, mutantResults.length),
      survivors,
    },
    pipeline: {
      moved: 'stepwise eval tests --data HumanEval.jsonl.gz (bench/results/eval-tests-humaneval.json)',
    },
    seconds: Math.round((Date.now() - started) / 1000),
    measuredAt: new Date().toISOString(),
  };
  fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'bench', 'results', 'humaneval-sandbox.json'),
    JSON.stringify(result, null, 2) + '\n',
  );
  console.log(`wrote bench/results/humaneval-sandbox.json in ${result.seconds} s`);
  return failedCanonical.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
