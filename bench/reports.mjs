// Builds the HTML report of every checked-in evaluation result (bench/results/eval-*.json and the
// eval-*.json of each run folder) beside its JSON, as `stepwise eval` writes it. The reports are
// not kept in git: they are made from the results, which are.
//   npm run build:tsc && node bench/reports.mjs
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { renderReport } = require(path.join(root, 'out', 'src', 'core', 'eval', 'report', 'html.js'));

const bench = path.join(root, 'bench');
const folders = [
  path.join(bench, 'results'),
  ...fs
    .readdirSync(path.join(bench, 'runs'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(bench, 'runs', e.name)),
];
let written = 0;
for (const folder of folders)
  for (const file of fs
    .readdirSync(folder)
    .filter((f) => /^(eval-.*|shipped|shared-prefix)\.json$/.test(f))) {
    const result = JSON.parse(fs.readFileSync(path.join(folder, file), 'utf8'));
    if (!['prove', 'tests', 'prm'].includes(result.kind)) continue;
    fs.writeFileSync(path.join(folder, file.replace(/\.json$/, '.html')), renderReport(result));
    written++;
  }
console.log(`${written} report(s) written beside their results`);
