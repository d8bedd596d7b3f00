/**
 * Task quality of a model's fast variant against its exact one, paired on the same items and
 * seeds: `stepwise eval prove` (MATH format) and `stepwise eval tests` (HumanEval/MBPP format),
 * one resumable journal per suite and variant under --runs. The two variants take turns in small
 * blocks of items, so when time runs out (--minutes, or a kill) both have the same items done;
 * after every block the paired table (bench/variant-quality-table.ts) is rewritten to --out,
 * marked incomplete with the counts so far. Running the same command again continues it.
 *
 *   npm run build && node out/bench/variant-quality.js [--suites prove,tests]
 *     [--prove-data MATH.jsonl] [--prove-limit 100] [--tests-data HumanEval.jsonl.gz] [--tests-limit 40]
 *     [--block 1] [--minutes M] [--model-dir DIR] [--calibrator FILE] [--runs DIR] [--out FILE]
 *     [--dist DIR] [--table-only]
 *
 * The CLI it runs is dist/cli.js (`npm run build`), the one a user runs, or DIR/cli.js. Every slice
 * of one table must run the same generation code: the CLI resumes a journal whenever its settings
 * and prompts match, whatever the code, so the runs folder's build.json records a digest of the
 * bundle that made the journals and a run with another bundle is refused (build that commit in a
 * separate checkout and pass its dist with --dist, or start new journals with --runs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { ProveItemResult } from '../src/core/eval/proveEval';
import type { TestsItemResult } from '../src/core/eval/testsEval';
import { DEFAULT_CALIBRATOR_FILE, loadCalibrator } from '../src/core/judgment/judge';
import { defaultModelDir } from '../src/core/model/defaults';
import { installedNameIn } from '../src/core/model/ladder/installRecord';
import { variantDir } from '../src/core/model/ladder/variants';
import { benchMachine, portablePath } from './machine';
import {
  buildDigest,
  pairItems,
  proveTable,
  remainingEstimate,
  RESAMPLES,
  testsTable,
  VARIANTS,
  type FinishedItem,
  type Variant,
} from './variant-quality-table';

const ROOT = path.resolve(__dirname, '..', '..');
const SUITES = ['prove', 'tests'] as const;
type Suite = (typeof SUITES)[number];

/**
 * The settings every item runs with, the same for both variants. Prove takes the product figure's
 * settings (bench/README.md: 2 candidates, 2 rounds, no meta-verifier, no step scores: the figures
 * here read neither); tests take the CLI's defaults. Seeds are explicit so both variants draw the
 * same ones (Prove's per-problem seed is 1 + 1000 · dataset position).
 */
const SETTINGS: Record<Suite, string[]> = {
  prove: ['--candidates', '2', '--iterations', '2', '--no-meta', '--no-step-scores', '--seed', '1'],
  tests: ['--seed', '1'],
};

const OPTIONS = {
  suites: { type: 'string', default: 'prove,tests' },
  'prove-data': { type: 'string' },
  'prove-limit': { type: 'string', default: '100' },
  'tests-data': { type: 'string' },
  'tests-limit': { type: 'string', default: '40' },
  block: { type: 'string', default: '1' },
  minutes: { type: 'string' },
  'model-dir': { type: 'string' },
  calibrator: { type: 'string' },
  runs: { type: 'string', default: path.join('bench', 'runs', 'variant-quality') },
  out: { type: 'string', default: path.join('bench', 'results', 'variant-quality.json') },
  dist: { type: 'string' },
  'table-only': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `usage: node out/bench/variant-quality.js [--suites prove,tests]
  [--prove-data MATH.jsonl] [--prove-limit 100] [--tests-data HumanEval.jsonl.gz] [--tests-limit 40]
  [--block 1] [--minutes M] [--model-dir DIR] [--calibrator FILE] [--runs DIR] [--out FILE]
  [--dist DIR] [--table-only]
Runs both variants of the default model on the same items and writes the paired table to --out.
`;

function fail(message: string): never {
  process.stderr.write(`variant-quality: ${message}\n`);
  process.exit(2);
}

/** Reads the flags; an unknown or malformed one ends with its reason and the usage, not a stack. */
function parseOptions() {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
}

const { values } = parseOptions();

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

function whole(flag: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) fail(`--${flag} must be a whole number ≥ ${min}, not "${value}".`);
  return n;
}

const suites = (values.suites ?? '').split(',').filter(Boolean) as Suite[];
for (const s of suites) if (!SUITES.includes(s)) fail(`--suites takes prove and/or tests, not "${s}".`);
const block = whole('block', values.block, 1);
const deadline = values.minutes === undefined ? Infinity : Date.now() + Number(values.minutes) * 60_000;
if (!(deadline > Date.now())) fail(`--minutes must be a positive number, not "${values.minutes}".`);

// The data as the repository lays it out: ../shared/data next to the checkout.
const sharedData = (file: string) => path.join(ROOT, '..', 'shared', 'data', file);
const exactDir = path.resolve(values['model-dir'] ?? defaultModelDir());
const modelDirs: Record<Variant, string> = { exact: exactDir, fast: variantDir(exactDir, 'fast') };
const calibratorFile = path.resolve(values.calibrator ?? path.join(ROOT, DEFAULT_CALIBRATOR_FILE));
const distDir = path.resolve(values.dist ?? path.join(ROOT, 'dist'));
/** The bundle that made the journals (see the header): written by the first run, checked after. */
const buildFile = path.join(path.resolve(values.runs!), 'build.json');
const BUNDLE_FILES = ['cli.js', 'modelWorker.js'] as const;

interface BuildRecord {
  /** The commit the bundle was built from, where someone established it (the bundle does not say). */
  commit: string | null;
  digests: Record<(typeof BUNDLE_FILES)[number], string>;
  note?: string;
}

function bundleDigests(): BuildRecord['digests'] {
  const read = (f: string) => fs.readFileSync(path.join(distDir, f), 'utf8');
  return Object.fromEntries(BUNDLE_FILES.map((f) => [f, buildDigest(read(f))])) as BuildRecord['digests'];
}

function readBuildRecord(): BuildRecord | null {
  return fs.existsSync(buildFile) ? (JSON.parse(fs.readFileSync(buildFile, 'utf8')) as BuildRecord) : null;
}

/** Refuses a bundle other than the journals' own; records it when the journals are new. */
function checkBuild(): void {
  const digests = bundleDigests();
  const recorded = readBuildRecord();
  if (!recorded) {
    fs.mkdirSync(path.dirname(buildFile), { recursive: true });
    fs.writeFileSync(buildFile, JSON.stringify({ commit: null, digests }, null, 2) + '\n');
    return;
  }
  const differs = BUNDLE_FILES.filter((f) => recorded.digests[f] !== digests[f]);
  if (differs.length)
    fail(
      `${portablePath(path.join(distDir, differs[0]))} is not the build that made the journals in ${portablePath(path.dirname(buildFile))} ` +
        `(${portablePath(buildFile)}${recorded.commit ? `: commit ${recorded.commit}` : ''}). Build that commit in a separate checkout ` +
        `(git worktree add DIR ${recorded.commit ?? 'COMMIT'}, then npm run build there) and pass --dist DIR/dist, or start new journals with --runs.`,
    );
}

interface SuiteRun {
  suite: Suite;
  data: string;
  /** The data path as results record it (never a machine's own folder). */
  label: string;
  target: number;
  journal: Record<Variant, string>;
  result: Record<Variant, string>;
}

/**
 * How the results name a data file: relative to the repository or under ~, and a file in some
 * checkout's shared/data folder as ../shared/data/NAME, where the repository's layout puts it.
 */
function dataLabel(file: string): string {
  const portable = portablePath(file);
  if (!path.isAbsolute(portable)) return portable;
  const shared = file.split(path.sep).lastIndexOf('shared');
  const parts = file.split(path.sep);
  return shared >= 0 && parts[shared + 1] === 'data'
    ? path.join('..', ...parts.slice(shared))
    : path.basename(file);
}

function suiteRun(suite: Suite): SuiteRun {
  const given = values[`${suite}-data`];
  const data = path.resolve(
    given ?? (suite === 'prove' ? sharedData('MATH-500.jsonl') : sharedData('HumanEval.jsonl.gz')),
  );
  if (!fs.existsSync(data)) fail(`no ${suite} data at ${data}; pass --${suite}-data FILE.`);
  const stem = path.basename(data).replace(/\.jsonl(\.gz)?$/, '');
  const file = (v: Variant) => path.join(path.resolve(values.runs!), `${suite}-${stem}-${v}`);
  return {
    suite,
    data,
    label: dataLabel(data),
    target: whole(`${suite}-limit`, values[`${suite}-limit`], 1),
    journal: { exact: `${file('exact')}.items.jsonl`, fast: `${file('fast')}.items.jsonl` },
    result: { exact: `${file('exact')}.json`, fast: `${file('fast')}.json` },
  };
}

const runs = suites.map(suiteRun);

function finishedItems<R>(journal: string): FinishedItem<R>[] {
  if (!fs.existsSync(journal)) return [];
  const latest = new Map<string, FinishedItem<R>>();
  for (const line of fs.readFileSync(journal, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let entry: { type?: string; index: number; id: string; result?: R; ms: number; cpuMs?: number };
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line torn by a kill; the CLI cuts it off when it next opens the journal
    }
    if (entry.type === 'item' && entry.result !== undefined)
      latest.set(entry.id, {
        index: entry.index,
        id: entry.id,
        result: entry.result,
        ms: entry.ms,
        ...(entry.cpuMs === undefined ? {} : { cpuMs: entry.cpuMs }),
      });
  }
  return [...latest.values()].sort((a, b) => a.index - b.index);
}

/** How many of the first items (dataset positions 0, 1, …) a journal has finished without a gap. */
function contiguous(journal: string): number {
  const done = new Set(finishedItems(journal).map((f) => f.index));
  let n = 0;
  while (done.has(n)) n++;
  return n;
}

/**
 * Journals and results are checked in, so they name the data file by its label; the CLI resumes a
 * journal only when its header points at the same file, so the header gets the real path back for
 * a run and the label again after it. A results file is written whole by each run: its machine
 * folders (the data, the checkout, the home folder) are rewritten after it.
 */
function relabelHeader(journal: string, to: string): void {
  if (!fs.existsSync(journal) || fs.existsSync(`${journal}.lock`)) return;
  const text = fs.readFileSync(journal, 'utf8');
  const cut = text.indexOf('\n');
  if (cut < 0) return;
  const header = JSON.parse(text.slice(0, cut)) as { fingerprint?: { data?: string } };
  if (!header.fingerprint || header.fingerprint.data === to) return;
  header.fingerprint.data = to;
  fs.writeFileSync(`${journal}.tmp`, JSON.stringify(header) + text.slice(cut));
  fs.renameSync(`${journal}.tmp`, journal);
}

function portableResult(file: string, data: string, label: string): void {
  if (!fs.existsSync(file)) return;
  const text = fs.readFileSync(file, 'utf8');
  const escaped = (s: string) => JSON.stringify(s).slice(1, -1);
  const next = text
    .split(escaped(data))
    .join(escaped(label))
    .split(escaped(ROOT + path.sep))
    .join('')
    .split(escaped(os.homedir() + path.sep))
    .join(escaped(`~${path.sep}`));
  if (next !== text) fs.writeFileSync(file, next);
}

const portable = (r: SuiteRun) => {
  for (const v of VARIANTS) {
    relabelHeader(r.journal[v], r.label);
    portableResult(r.result[v], r.data, r.label);
  }
};

let child: ChildProcess | null = null;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    // The CLI saves the finished items and stops; the table is then written from what is there.
    stopping = true;
    child?.kill(signal);
  });

/** Runs the CLI for one variant up to item `end`; resolves with its exit status. */
function runVariant(r: SuiteRun, v: Variant, end: number): Promise<number> {
  relabelHeader(r.journal[v], r.data);
  const args = [
    path.join(distDir, 'cli.js'),
    'eval',
    r.suite,
    '--data',
    r.data,
    '--limit',
    String(end),
    '--out',
    r.result[v],
    '--model-dir',
    exactDir,
    '--variant',
    v,
    // Always the CPU: on a machine with CUDA, "auto" would switch device mid-table (journals do
    // not record the device).
    '--device',
    'cpu',
    ...SETTINGS[r.suite],
  ];
  process.stderr.write(`\n[${r.suite} ${v}] items 1–${end}\n`);
  return new Promise((resolve) => {
    child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code, signal) => {
      child = null;
      portable(r);
      resolve(code ?? (signal ? 130 : 1));
    });
  });
}

/** Mean seconds one item of the suite took so far (both variants), for the time check. */
function secondsPerItem(r: SuiteRun): number | null {
  const all = VARIANTS.flatMap((v) => finishedItems(r.journal[v]));
  return all.length ? all.reduce((n, f) => n + f.ms, 0) / all.length / 1000 : null;
}

// Loading the model and reading the data, per CLI start, on top of the items: a few seconds in the
// first slice (its six starts and items took 620 s of wall time for 636 s of item time), with margin.
const START_SECONDS = 15;

async function run(): Promise<void> {
  if (!fs.existsSync(path.join(distDir, 'cli.js')))
    fail(`no CLI at ${portablePath(path.join(distDir, 'cli.js'))}: build it first (npm run build).`);
  checkBuild();
  for (const v of VARIANTS)
    if (!fs.existsSync(modelDirs[v]))
      fail(
        `the ${v} variant is not installed at ${modelDirs[v]} (stepwise models install … --variant ${v}).`,
      );
  const stalled = new Set<Suite>();
  for (;;) {
    let ran = false;
    for (const r of runs) {
      if (stopping || stalled.has(r.suite)) continue;
      const done = Math.min(...VARIANTS.map((v) => contiguous(r.journal[v])));
      if (done >= r.target) continue;
      const end = Math.min(r.target, done + block);
      const perItem = secondsPerItem(r);
      const todo = VARIANTS.filter((v) => contiguous(r.journal[v]) < end);
      const needed = todo.reduce(
        (n, v) => n + START_SECONDS + (end - contiguous(r.journal[v])) * (perItem ?? 0),
        0,
      );
      if (Date.now() + needed * 1000 > deadline) {
        process.stderr.write(
          `[${r.suite}] no time left for items up to ${end} in both variants (${Math.round(needed)} s).\n`,
        );
        continue;
      }
      for (const v of todo) {
        if (stopping) break;
        const before = contiguous(r.journal[v]);
        const status = await runVariant(r, v, end);
        // An item that fails again and again would be retried forever: the suite stops instead.
        if (!stopping && contiguous(r.journal[v]) === before) {
          process.stderr.write(
            `[${r.suite} ${v}] no item finished (exit ${status}); this suite stops here.\n`,
          );
          stalled.add(r.suite);
          break;
        }
      }
      ran = true;
      writeTable();
    }
    if (!ran || stopping) break;
  }
}

function commandLine(): string {
  const args = process.argv.slice(2).map((a) => (path.isAbsolute(a) ? dataLabel(a) : a));
  return `node out/bench/variant-quality.js ${args.join(' ')}`.trim();
}

function writeTable(): void {
  const calibrator = loadCalibrator(calibratorFile);
  const suitesOut: Record<string, unknown> = {};
  let complete = true;
  for (const r of runs) {
    portable(r);
    const finished = <R>(v: Variant) => finishedItems<R>(r.journal[v]).filter((f) => f.index < r.target);
    const proved = () => pairItems(finished<ProveItemResult>('exact'), finished<ProveItemResult>('fast'));
    const tested = () => pairItems(finished<TestsItemResult>('exact'), finished<TestsItemResult>('fast'));
    const figures = r.suite === 'prove' ? proveTable(proved(), calibrator) : testsTable(tested());
    const pairs = figures.items.length;
    if (pairs < r.target) complete = false;
    const header = fs.existsSync(r.journal.exact)
      ? JSON.parse(fs.readFileSync(r.journal.exact, 'utf8').split('\n')[0]).fingerprint
      : null;
    suitesOut[r.suite] = {
      data: r.label,
      target: r.target,
      done: { exact: finished('exact').length, fast: finished('fast').length, paired: pairs },
      complete: pairs >= r.target,
      settings: header && { ...header, model: undefined, data: undefined },
      commands: Object.fromEntries(
        VARIANTS.map((v) => [
          v,
          `stepwise eval ${r.suite} --data ${r.label} --limit ${r.target} --out ${portablePath(r.result[v])} --variant ${v} --device cpu ${SETTINGS[r.suite].join(' ')}`,
        ]),
      ),
      journals: Object.fromEntries(VARIANTS.map((v) => [v, portablePath(r.journal[v])])),
      ...figures,
      remaining: remainingEstimate(finished('exact'), finished('fast'), r.target),
    };
  }
  const out = path.resolve(values.out!);
  const perplexity = readPerplexity();
  const table = {
    benchmark: 'variant-quality',
    description:
      'Task quality of the fast variant against the exact one on the same items and seeds: per-item paired results, each figure with fast − exact and a 95 % paired bootstrap interval.',
    complete,
    updatedAt: new Date().toISOString(),
    command: commandLine(),
    model: {
      exact: { name: installedNameIn(modelDirs.exact) ?? null, dir: portablePath(modelDirs.exact) },
      fast: { name: installedNameIn(modelDirs.fast) ?? null, dir: portablePath(modelDirs.fast) },
    },
    machine: benchMachine(),
    build: readBuildRecord(),
    interval: `95 % percentile bootstrap of the difference, resampling items with both variants' results together (${RESAMPLES} resamples, seed 1); zeroInside: no difference found at this n`,
    calibrator: portablePath(calibratorFile),
    suites: suitesOut,
    perplexity,
    default: complete
      ? 'decide from this table: fast only where no figure is worse beyond its interval'
      : 'exact (the table is incomplete)',
  };
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(table, null, 2) + '\n');
  process.stderr.write(
    `table: ${portablePath(out)} (${runs.map((r) => `${r.suite} ${(suitesOut[r.suite] as { done: { paired: number } }).done.paired}/${r.target}`).join(', ')})\n`,
  );
}

/** Perplexity on the fixed text, from the engine benchmark that measured it on the default model. */
function readPerplexity(): unknown {
  if (exactDir !== path.resolve(defaultModelDir())) return null;
  const file = path.join(ROOT, 'bench', 'results', 'generate-fast-0.5b-kv.json');
  if (!fs.existsSync(file)) return null;
  const bench = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    results?: { perplexity?: { text: string; exact: number; fast: number } }[];
  };
  const p = bench.results?.find((r) => r.perplexity)?.perplexity;
  return p ? { ...p, source: portablePath(file) } : null;
}

if (values['table-only']) writeTable();
else
  run().then(
    () => writeTable(),
    (e) => fail((e as Error).stack ?? String(e)),
  );
