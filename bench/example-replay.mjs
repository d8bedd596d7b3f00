// Replays the docstring examples on the functions of `stepwise eval tests` journals written before
// the journals kept them (docs/test-verdicts.md): the examples run in the sandbox on each reference
// and each known-wrong mutant (made as the run made them), without a model, so that a rule holding
// a failed example against the user's function applies to old held-out runs too.
//   node bench/example-replay.mjs --run RUN.json --data DATA.jsonl [--run RUN2.json --data DATA2] \
//        [--out bench/results/test-verdicts/example-replay.json]
// bench/test-verdicts.mjs reads the output with --examples. Run `npx tsc -p tsconfig.json` first.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { itemsFileOf } from './journal-items.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { readCodeTasks, MISSING_DATA_HINTS } = require(path.join(root, 'out/src/core/eval/datasets.js'));
const { pythonMutants } = require(path.join(root, 'out/src/core/eval/mutants.js'));
const { replayExampleRows } = require(path.join(root, 'out/src/core/eval/testsEval.js'));
const { releaseAllSandboxes } = require(path.join(root, 'out/src/core/sandbox/index.js'));

const args = process.argv.slice(2);
const take = (flag) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
const runs = take('--run');
const data = take('--data');
if (!runs.length || runs.length !== data.length)
  throw new Error('usage: --run RUN.json --data DATA.jsonl (one --data per --run) [--out FILE]');
const out = take('--out')[0] ?? 'bench/results/test-verdicts/example-replay.json';
// Results name files relative to the repository, never by a machine path.
const rel = (p) => path.relative(root, path.resolve(p)).split(path.sep).join('/');

const items = [];
for (const [r, run] of runs.entries()) {
  const lines = fs
    .readFileSync(itemsFileOf(run), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const header = lines.find((e) => e.type === 'header');
  const done = lines.filter((e) => e.type === 'item' && e.result?.verdicts);
  const { items: tasks } = readCodeTasks(data[r], MISSING_DATA_HINTS.tests);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const chosen = done.map((e) => byId.get(e.result.id));
  const missing = done.filter((_, i) => !chosen[i]).map((e) => e.result.id);
  if (missing.length) throw new Error(`${data[r]} holds no ${missing.join(', ')} (the data ${run} ran on?)`);
  const mutants = await pythonMutants(Object.fromEntries(chosen.map((t) => [t.id, t.referenceCode])), {
    limit: header.fingerprint.mutantsPerFunction ?? 8,
  });
  for (const [i, e] of done.entries()) {
    const task = chosen[i];
    const t0 = Date.now();
    const replay = await replayExampleRows(task, mutants[task.id] ?? [], {
      perTestTimeoutMs: header.fingerprint.perTestTimeoutMs ?? 5000,
      memoryMb: header.fingerprint.memoryMb ?? 512,
    });
    // The same known-wrong mutants as the run, or the rows would be matched to the wrong ones.
    const sameMutants = replay.knownWrong === e.result.mutants.knownWrong;
    items.push({
      run: rel(run),
      index: e.index,
      id: task.id,
      knownWrong: replay.knownWrong,
      sameMutants,
      examples: replay.examples,
    });
    process.stderr.write(
      `${task.id}: ${replay.examples?.lines.length ?? 0} examples, reference ${replay.examples?.reference ?? '-'}, mutants ${replay.examples?.mutants.join(' ') ?? '-'}${sameMutants ? '' : ' (known-wrong count differs from the run: not used)'} (${Date.now() - t0} ms)\n`,
    );
  }
}
releaseAllSandboxes();
const doc = {
  command: `node bench/example-replay.mjs ${args.join(' ')}`,
  createdAt: new Date().toISOString(),
  items,
};
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
process.stderr.write(`wrote ${rel(out)}: ${items.length} functions\n`);
