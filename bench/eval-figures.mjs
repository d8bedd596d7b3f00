// Rewrites docs/evaluation.md's table of evaluation figures (between <!-- eval-figures --> markers) from the
// checked-in results bench/results/eval-*.json, so the table never disagrees with the files.
//   node bench/eval-figures.mjs [--check]    (--check: exit 1 when the page is out of date)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsDir = path.join(root, 'bench', 'results');
const pagePath = path.join(root, 'docs', 'evaluation.md');

const pct = (x) => (x?.value == null ? '—' : `${(100 * x.value).toFixed(0)} % (${x.k}/${x.n})`);
const num = (x, d = 2) => (x == null ? '—' : x.toFixed(d));

function headline(r) {
  const m = r.metrics;
  if (r.kind === 'prove') {
    const rounds = m.perIteration.map((x) => num(x.accuracy.value)).join(' → ');
    const sel = m.bestOfN.selections;
    return [
      `answer accuracy ${pct(m.accuracy)}`,
      `format ${pct(m.format.candidates)}`,
      `accuracy per round ${rounds || '—'}`,
      // Results written before rounds recorded what they fixed and broke have no such entries.
      ...m.perIteration
        .filter((x) => x.change)
        .map(
          (x) =>
            `round ${x.round} fixed ${x.change.fixed.k}/${x.change.fixed.n} wrong, broke ${x.change.broke.k}/${x.change.broke.n} right`,
        ),
      `best-of-${m.bestOfN.candidates}: verifier ${num(sel.verifier.value)}, self ${num(sel.self.value)}, majority ${num(sel.majority.value)}, single ${num(sel.single.value)}`,
      `AUROC self ${num(m.calibration.selfScore.roc.auroc)}, verifier ${num(m.calibration.verifierScore.roc.auroc)}`,
    ].join('; ');
  }
  if (r.kind === 'tests') {
    // Verdicts with evidence (runs that recorded them): the user's-function view of the same tests.
    const v = m.verdicts;
    const verdicts = v
      ? [
          `false alarms ${pct(v.falseAlarms)}`,
          `detections ${pct(v.detections)}`,
          `"fails" precision ${pct(v.precision)} at confidence ≥ ${v.threshold}`,
        ]
      : [];
    return [
      `valid tests ${pct(m.validity.pooled)}`,
      `mutation score ${pct(m.mutationScore.pooled)}`,
      `generator pass rate ${pct(m.generatorPassRate)}`,
      ...verdicts,
    ].join('; ');
  }
  return [
    `step AUROC ${num(m.stepRoc.auroc)}`,
    `wrong-step F1 ${num(m.errorDetection.f1)}`,
    `first-error accuracy ${pct(m.firstError.accuracy)}`,
  ].join('; ');
}

function row(file) {
  const r = JSON.parse(fs.readFileSync(path.join(resultsDir, file), 'utf8'));
  const seconds = r.timing?.secondsPerItem;
  // A run limited to part of its dataset says so: "52 of 164".
  const available = r.dataset?.available;
  const finished = r.items?.finished ?? r.metrics?.problems;
  const ofAll = available != null && finished != null && finished < available ? ` of ${available}` : '';
  const items = `${finished ?? '—'}${ofAll}${r.complete ? '' : ' (incomplete)'}`;
  return `| \`bench/results/${file}\` (${r.model.name}, ${r.model.backend}) | ${items} | ${headline(r)} | ${seconds == null ? '—' : `${seconds.toFixed(0)} s`} |`;
}

// The evaluations, and the test-verdict runs (fit and held-out slices) in their own folder.
const files = [
  ...fs.readdirSync(resultsDir).filter((f) => /^eval-.*\.json$/.test(f)),
  ...fs
    .readdirSync(path.join(resultsDir, 'test-verdicts'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `test-verdicts/${f}`)
    // Only evaluation results: the folder also keeps what bench scripts derive from them.
    .filter(
      (f) => JSON.parse(fs.readFileSync(path.join(resultsDir, f), 'utf8')).schema === 'stepwise.eval-result',
    ),
].sort();
const table = [
  '| results (model, backend) | items | headline figures | time per item |',
  '|---|---|---|---|',
  ...files.map(row),
].join('\n');
const page = fs.readFileSync(pagePath, 'utf8');
const updated = page.replace(
  /<!-- eval-figures -->[\s\S]*?<!-- \/eval-figures -->/,
  `<!-- eval-figures -->\n${table}\n<!-- /eval-figures -->`,
);
if (process.argv.includes('--check')) {
  if (updated !== page) {
    console.error(
      'docs/evaluation.md: the table of evaluation figures is out of date: run node bench/eval-figures.mjs',
    );
    process.exit(1);
  }
} else {
  fs.writeFileSync(pagePath, updated);
  console.log(`docs/evaluation.md: ${files.length} evaluation(s) in the table`);
}
