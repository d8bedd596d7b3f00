// Two `stepwise eval tests` journals on the same functions, side by side: an earlier full run and a
// later one (possibly still under way), compared on the functions both finished.
//   node bench/eval-tests-compare.mjs BEFORE.items.jsonl AFTER.items.jsonl OUT.json
import * as fs from 'node:fs';
import { journalItems } from './journal-items.mjs';

const [beforePath, afterPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: node bench/eval-tests-compare.mjs BEFORE.items.jsonl AFTER.items.jsonl OUT.json');
  process.exit(2);
}
const items = (file) =>
  new Map(
    journalItems(file)
      .filter((e) => e.result)
      .map((e) => [e.id, { ...e.result, journalMs: e.ms }]),
  );
const before = items(beforePath);
const after = items(afterPath);
const common = [...after.keys()].filter((id) => before.has(id));
const share = (k, n) => ({ k, n, value: n ? Math.round((k / n) * 1000) / 1000 : null });
const sum = (rows, f) => rows.reduce((a, r) => a + (f(r) ?? 0), 0);

function figures(run) {
  const rows = common.map((id) => run.get(id));
  return {
    tests_admitted: sum(rows, (r) => r.tests.admitted),
    tests_per_function: Math.round((sum(rows, (r) => r.tests.admitted) / rows.length) * 10) / 10,
    valid_on_reference: share(
      sum(rows, (r) => r.tests.valid),
      sum(rows, (r) => r.tests.admitted),
    ),
    functions_with_a_valid_test: share(rows.filter((r) => r.tests.valid > 0).length, rows.length),
    mutants_killed: share(
      sum(rows, (r) => r.mutants?.killed),
      sum(rows, (r) => r.mutants?.knownWrong),
    ),
    generated_code_passes: share(
      rows.filter((r) => r.generator?.officialStatus === 'passed').length,
      rows.length,
    ),
    seconds_per_function: Math.round(sum(rows, (r) => r.journalMs) / rows.length / 100) / 10,
  };
}

const out = {
  benchmark: 'eval-tests-compare',
  date: new Date().toISOString(),
  before: beforePath,
  after: afterPath,
  functions: common.length,
  first: common[0],
  last: common[common.length - 1],
  figures: { before: figures(before), after: figures(after) },
};
fs.writeFileSync(outPath, JSON.stringify(out, null, 1) + '\n');
console.log(JSON.stringify(out, null, 1));
