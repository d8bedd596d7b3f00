// Puts two `stepwise eval tests` results side by side (bench/prefix-cache.sh): the same functions
// with the engine's prefix cache and without it.
//   node bench/prefix-cache-summary.mjs CACHED.json WHOLE.json OUT.json
import * as fs from 'node:fs';
import { itemsFileOf, journalItems } from './journal-items.mjs';

const [cachedPath, wholePath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: node bench/prefix-cache-summary.mjs CACHED.json WHOLE.json OUT.json');
  process.exit(2);
}

function variant(name, resultPath, description) {
  const result = JSON.parse(fs.readFileSync(resultPath, 'utf8'));
  const items = journalItems(itemsFileOf(resultPath));
  const m = result.metrics;
  return {
    variant: name,
    description,
    model: result.model.name,
    functions: m.functions,
    seconds_per_function: round(result.timing.secondsPerItem, 1),
    tests_admitted: m.tests.admitted,
    tests_valid: m.tests.valid,
    validity: round(m.validity.pooled.value, 3),
    mutation_score: round(m.mutationScore.pooled.value, 3),
    machine: result.timing.machine,
    per_function: items.map((r) => ({
      id: r.id,
      seconds: round(r.ms / 1000, 1),
      admitted: r.result.tests?.admitted,
      valid: r.result.tests?.valid,
      generated_code: r.result.generator?.officialStatus,
    })),
  };
}

const round = (x, d) => (x == null ? null : Math.round(x * 10 ** d) / 10 ** d);
const cached = variant(
  'cached',
  cachedPath,
  'each request reads its shared prefix from the last request’s cache',
);
const whole = variant('whole', wholePath, '--no-prefix-cache: every request runs its whole prompt');
const out = {
  benchmark: 'prefix-cache',
  date: new Date().toISOString(),
  what: 'stepwise eval tests on the first HumanEval functions with the default local model, with and without the ONNX engine’s prefix cache, one run after the other',
  variants: [cached, whole],
  ratio: { seconds_cached_over_whole: round(cached.seconds_per_function / whole.seconds_per_function, 3) },
};
fs.writeFileSync(outPath, JSON.stringify(out, null, 1) + '\n');
console.error(
  `cached ${cached.seconds_per_function} s/function, whole ${whole.seconds_per_function} s/function (×${out.ratio.seconds_cached_over_whole}); wrote ${outPath}`,
);
