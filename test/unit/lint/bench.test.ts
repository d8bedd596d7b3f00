import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { test } from 'node:test';
import { portablePath } from '../../../bench/machine';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const BENCH = path.join(ROOT, 'bench');

/** The files shipped under bench/, relative to it: git's list, or every file outside a checkout. */
function benchFiles(): string[] {
  try {
    return execFileSync('git', ['ls-files', '--', 'bench'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' })
      .split('\n')
      .filter(Boolean)
      .map((f) => path.relative('bench', f))
      .filter((f) => fs.existsSync(path.join(BENCH, f)));
  } catch {
    const walk = (dir: string): string[] =>
      fs.readdirSync(path.join(BENCH, dir), { withFileTypes: true }).flatMap((e) => {
        const rel = path.join(dir, e.name);
        return e.isDirectory() ? walk(rel) : [rel];
      });
    return walk('');
  }
}

const isRecord = (f: string) => /^(results|runs)\//.test(f);
/** Companions of a results file (its per-item journal, its samples) are indexed with it. */
const recordOf = (f: string) => f.replace(/\.(items|samples)\.jsonl$/, '.json');
/** A script or a folder of scripts: everything outside results/, runs/ and the prompt variants. */
const isScript = (f: string) => !isRecord(f) && !f.startsWith('prompts/') && f !== 'README.md';

/** The backticked names in bench/README.md, as patterns (`*` matches within one name). */
function indexedNames(): RegExp[] {
  const readme = fs.readFileSync(path.join(BENCH, 'README.md'), 'utf8');
  return [...readme.matchAll(/`([^`\s]+)`/g)].map(
    (m) => new RegExp(`(^|/)${m[1].replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`),
  );
}

/** Is the file, or a folder above it (written `structured/`, `runs/NAME/`), named in the index? */
function indexed(file: string, names: RegExp[]): boolean {
  const candidates = [file];
  // results/ and runs/ as a whole are named in the prose, which indexes none of their files.
  for (let dir = path.dirname(file); !['.', 'results', 'runs'].includes(dir); dir = path.dirname(dir))
    candidates.push(`${dir}/`);
  return candidates.some((c) => names.some((n) => n.test(c)));
}

test('bench/README.md names every benchmark script and every results file or run folder', () => {
  const names = indexedNames();
  const files = benchFiles();
  const scripts = files.filter(isScript).filter((f) => !indexed(f, names));
  // A run folder is indexed as a whole (`runs/NAME/`) or through the figures it holds.
  const records = files
    .filter(isRecord)
    .map(recordOf)
    .filter((f) => !indexed(f, names))
    .filter(
      (f) =>
        !(
          f.startsWith('runs/') &&
          files.some((g) => g.startsWith(f.split('/').slice(0, 2).join('/') + '/') && indexed(g, names))
        ),
    );
  assert.deepEqual({ scripts, records: [...new Set(records)] }, { scripts: [], records: [] });
});

test('bench scripts are named one way, in kebab-case', () => {
  // A Python module another script imports would have to be snake_case; none is, so none is exempt.
  const kebab = /^[a-z0-9]+(-[a-z0-9]+)*\.(ts|mjs|sh|py)$/;
  assert.deepEqual(
    benchFiles()
      .filter(isScript)
      .filter((f) => !kebab.test(path.basename(f))),
    [],
  );
});

test('the checked-in results and run journals name no folder of the machine they ran on', () => {
  // Where a model or data file lay is recorded as `~/…` or relative to the repository (`bench/…`,
  // `../shared/data/…`); bench/machine.ts portablePath writes it so.
  const machinePath = /(^|[^\w.~/-])(\/(?:work|root|home|tmp|Users|private|var\/folders)\/[^\s"',)]*)/;
  const found: string[] = [];
  for (const file of benchFiles().filter(isRecord)) {
    const text = fs.readFileSync(path.join(BENCH, file), 'utf8');
    const hit = machinePath.exec(text);
    if (hit) found.push(`bench/${file}: ${hit[2]}`);
  }
  assert.deepEqual(found, []);
});

test('no results file or run journal is checked in twice, byte for byte', () => {
  const byHash = new Map<string, string[]>();
  for (const file of benchFiles().filter(isRecord)) {
    const hash = crypto
      .createHash('sha256')
      .update(fs.readFileSync(path.join(BENCH, file)))
      .digest('hex');
    byHash.set(hash, [...(byHash.get(hash) ?? []), `bench/${file}`]);
  }
  assert.deepEqual(
    [...byHash.values()].filter((same) => same.length > 1),
    [],
  );
});

test('evaluation reports are built on demand, not checked in', () => {
  // node bench/reports.mjs writes one beside every evaluation result; .gitignore keeps them out.
  assert.deepEqual(
    benchFiles().filter((f) => f.endsWith('.html')),
    [],
  );
});

test('a results file records a model folder under home as ~/… and a repository file relative to the root', () => {
  assert.equal(
    portablePath(path.join(os.homedir(), '.cache', 'stepwise', 'models', 'm')),
    path.join('~', '.cache', 'stepwise', 'models', 'm'),
  );
  assert.equal(
    portablePath(path.join(BENCH, 'results', 'prove.json')),
    path.join('bench', 'results', 'prove.json'),
  );
  assert.equal(
    portablePath(path.join(ROOT, '..', 'shared', 'data', 'MATH-500.jsonl')),
    path.join('..', 'shared', 'data', 'MATH-500.jsonl'),
  );
});
