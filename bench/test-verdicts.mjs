// Fits the confirm threshold of generated-test verdicts on a training slice and reports it,
// unchanged, on held-out slices (docs/test-verdicts.md). Reads `stepwise eval tests` journals:
//   node bench/test-verdicts.mjs --train RUN.json:0-10 --heldout RUN.json:10-25 --heldout MBPP.json:0-10 \
//        [--max-false-alarms 0.05] [--out bench/results/test-verdicts.json]
// A slice is RUN.json:FROM-TO over dataset positions (the journal's item index), TO exclusive.
// Besides the held-out slices, a leave-one-out estimate over the training slice is reported: each
// function judged at a threshold fitted on the other training functions only.
// A docstring example the user's function fails counts as shown failing (exampleConfirms); journals
// from before the examples were kept take them from --examples FILE (bench/example-replay.mjs), and
// every slice is also reported with the examples left out (the generated tests alone).
// Besides the product's rule (implementations that fail an example of the specification set
// aside), the rules recorded beside it are fitted and reported the same way: every implementation
// counted, and the user's function counted as one more implementation (docs/test-verdicts.md);
// and the product's rule before it needed two agreeing implementations to confirm a failure; and
// every slice under the rule before most implementations set aside stopped confirming (mostSetAside).
// Run `npx tsc -p tsconfig.json` first: the fitting and the metrics are the product's own (out/).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { itemsFileOf, journalItems } from './journal-items.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { fitConfirmThreshold, verdictMetrics } = require(path.join(root, 'out/src/core/eval/testVerdicts.js'));
const { exampleFailsFromMatrix } = require(path.join(root, 'out/src/core/eval/passMatrix.js'));
const { wilson } = require(path.join(root, 'out/src/core/math/stats.js'));

const args = process.argv.slice(2);
const take = (flag) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
// Several --train slices are pooled into one training set.
const trainSpecs = take('--train');
const trainSpec = trainSpecs.join(' + ');
if (!trainSpecs.length)
  throw new Error(
    'usage: --train RUN.json:FROM-TO --heldout RUN.json:FROM-TO ... [--examples REPLAY.json] [--out FILE]',
  );
const maxFalseAlarms = Number(take('--max-false-alarms')[0] ?? 0.05);
const out = take('--out')[0] ?? 'bench/results/test-verdicts.json';

// Docstring examples replayed on journals from before they were kept (bench/example-replay.mjs):
// the rows of the reference and of each known-wrong mutant, by function id.
const replayed = new Map(
  take('--examples').flatMap((file) =>
    JSON.parse(fs.readFileSync(file, 'utf8'))
      .items.filter((it) => it.sameMutants && it.examples)
      .map((it) => [it.id, it.examples]),
  ),
);
/** The item with its docstring examples' failures: from its journal, else replayed, else none. */
function withExamples(r) {
  if (!r.verdicts || r.verdicts.exampleFails) return { ...r, examplesFrom: r.verdicts ? 'journal' : 'none' };
  const examples = replayed.get(r.id);
  if (!examples) return { ...r, examplesFrom: 'none' };
  const exampleFails = exampleFailsFromMatrix({ mutants: examples.mutants, examples });
  return { ...r, examplesFrom: 'replay', verdicts: { ...r.verdicts, exampleFails } };
}

function slice(spec) {
  const m = /^(.*):(\d+)-(\d+)$/.exec(spec);
  if (!m) throw new Error(`a slice is RUN.json:FROM-TO, not ${spec}`);
  const [, file, from, to] = m;
  const entries = journalItems(itemsFileOf(file)).filter(
    (e) => e.index >= Number(from) && e.index < Number(to) && e.result?.verdicts,
  );
  const results = entries.map((e) => withExamples(e.result));
  const seconds = results.map((r) => (r.ms.pipeline + r.ms.sandbox) / 1000);
  return {
    spec,
    ids: results.map((r) => r.id),
    results,
    secondsPerFunction: seconds.length ? seconds.reduce((a, b) => a + b, 0) / seconds.length : null,
  };
}

/** The items with every confidence read under one rule: 'product' or a recorded alternative. */
// 'loneMayConfirm' is the product's rule before a failure needed two agreeing implementations:
// the same confidences without the count of implementations passing the test.
const RULES = ['product', 'loneMayConfirm', 'everyImplementation', 'withUser'];
function underRule(results, rule) {
  if (rule === 'product') return results;
  // The alternatives were recorded as confidences alone: the agreement count is the product's.
  const pick = ({ implementationsPassing: _count, ...f }) => ({
    ...f,
    confidence: rule === 'loneMayConfirm' ? f.confidence : (f.alternatives?.[rule] ?? f.confidence),
  });
  return results.map((r) => ({
    ...r,
    verdicts: r.verdicts && {
      ...r.verdicts,
      referenceFails: r.verdicts.referenceFails.map(pick),
      mutantFails: r.verdicts.mutantFails.map((fails) => fails.map(pick)),
    },
  }));
}
const meanMs = (results, part) => {
  const xs = results.map((r) => r.ms[part]).filter((x) => typeof x === 'number');
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length / 1000 : null;
};

/**
 * Leave-one-out over the training slice: each function is judged at a threshold fitted on the
 * others only, so every verdict counted is a held-out one. Sums the per-function counts.
 */
function leaveOneOut(results) {
  const counts = { alarms: 0, functions: 0, detected: 0, mutants: 0, correct: 0, confirmed: 0 };
  const thresholds = [];
  results.forEach((r, i) => {
    const others = results.filter((_, j) => j !== i);
    const t = fitConfirmThreshold(others, maxFalseAlarms).threshold;
    thresholds.push(t);
    const m = verdictMetrics([r], t);
    counts.functions += m.falseAlarms.n;
    counts.alarms += m.falseAlarms.k;
    counts.mutants += m.detections.n;
    counts.detected += m.detections.k;
    counts.confirmed += m.precision.n;
    counts.correct += m.precision.k;
  });
  return {
    thresholds,
    falseAlarms: wilson(counts.alarms, counts.functions),
    detections: wilson(counts.detected, counts.mutants),
    precision: wilson(counts.correct, counts.confirmed),
  };
}
const report = (s) => ({
  slice: s.spec,
  functions: s.ids.length,
  ids: s.ids,
  secondsPerFunction: s.secondsPerFunction,
  // Where the time goes (seconds per function; stages and samples are parts of the pipeline).
  seconds: {
    pipeline: meanMs(s.results, 'pipeline'),
    stages: meanMs(s.results, 'stages'),
    samples: meanMs(s.results, 'samples'),
    sandbox: meanMs(s.results, 'sandbox'),
    // The repair round, averaged over the functions that had one (absent in older journals).
    repair: meanMs(s.results, 'repair'),
    repairs: s.results.filter((r) => r.repair).length,
    // Per stage, where the journals say: the stage's seconds, its generator's seconds and tokens.
    byStage: byStage(s.results),
  },
  // Where each function's docstring-example failures come from: its journal, a replay, or none.
  examplesFrom: countBy(s.results.map((r) => r.examplesFrom)),
  // Today's behaviour: every failure shown as one (threshold 0).
  everyFailureShown: verdictMetrics(s.results, 0, 0),
  atFittedThreshold: verdictMetrics(s.results, fit.threshold),
  // The same, the docstring examples' failures left out: what the generated tests alone show.
  generatedTestsOnly: verdictMetrics(s.results, fit.threshold, undefined, { examples: false }),
  // The rule before mostSetAside (src/core/tests/evidence.ts): a consensus of the few
  // implementations the examples left may confirm however many were set aside.
  misreadMayConfirm: verdictMetrics(s.results, fit.threshold, undefined, { misreadMayConfirm: true }),
  // The rule before values were held to outsideExamplesRule: another value on an input shaped unlike
  // every docstring example may confirm (only a raise there may not).
  valuesOutsideExamplesMayConfirm: verdictMetrics(s.results, fit.threshold, undefined, {
    valuesOutsideExamplesMayConfirm: true,
  }),
});
function byStage(results) {
  const rows = results.map((r) => r.ms.byStage).filter(Boolean);
  if (!rows.length) return null;
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return rows[0].map((_, i) => ({
    seconds: mean(rows.map((st) => st[i]?.ms ?? 0)) / 1000,
    generatorSeconds: mean(rows.map((st) => st[i]?.generatorMs ?? 0)) / 1000,
    generatorTokens: mean(rows.map((st) => st[i]?.generatorTokens ?? 0)),
  }));
}
function countBy(keys) {
  const counts = {};
  for (const k of keys) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}
const trainSlices = trainSpecs.map((spec) => slice(spec));
const trainResults = trainSlices.flatMap((t) => t.results);
const baseTrain = {
  spec: trainSpec,
  ids: trainSlices.flatMap((t) => t.ids),
  results: trainResults,
  secondsPerFunction: trainResults.length
    ? trainResults.reduce((n, r) => n + (r.ms.pipeline + r.ms.sandbox) / 1000, 0) / trainResults.length
    : null,
};
const baseHeldout = take('--heldout').map((spec) => slice(spec));
const asRule = (s, rule) => ({ ...s, results: underRule(s.results, rule) });
let fit;
const byRule = Object.fromEntries(
  RULES.map((rule) => {
    const train = asRule(baseTrain, rule);
    fit = fitConfirmThreshold(train.results, maxFalseAlarms);
    return [
      rule,
      {
        fittedThreshold: fit.threshold,
        train: report(train),
        leaveOneOut: leaveOneOut(train.results),
        heldout: baseHeldout.map((h) => report(asRule(h, rule))),
      },
    ];
  }),
);
const doc = {
  command: `node bench/test-verdicts.mjs ${args.join(' ')}`,
  createdAt: new Date().toISOString(),
  rule: `the threshold with the most detections among those with at most ${maxFalseAlarms} false alarms on the training slice`,
  ...byRule.product,
  alternatives: {
    loneMayConfirm: byRule.loneMayConfirm,
    everyImplementation: byRule.everyImplementation,
    withUser: byRule.withUser,
  },
};
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
const p = (x) =>
  x.value === null
    ? '—'
    : `${x.k}/${x.n} = ${(100 * x.value).toFixed(0)} % [${(100 * x.low).toFixed(0)}, ${(100 * x.high).toFixed(0)}]`;
for (const [rule, d] of Object.entries(byRule)) {
  console.log(`rule ${rule}:`);
  for (const r of [d.train, ...d.heldout])
    for (const [name, m] of [
      ['every failure shown', r.everyFailureShown],
      [`threshold ${d.fittedThreshold.toFixed(3)}`, r.atFittedThreshold],
      [`threshold ${d.fittedThreshold.toFixed(3)}, generated tests only`, r.generatedTestsOnly],
      [`threshold ${d.fittedThreshold.toFixed(3)}, misread consensus may confirm`, r.misreadMayConfirm],
      [
        `threshold ${d.fittedThreshold.toFixed(3)}, values on inputs unlike the examples may confirm`,
        r.valuesOutsideExamplesMayConfirm,
      ],
    ])
      console.log(
        `  ${r.slice} (${name}): false alarms ${p(m.falseAlarms)}, detections ${p(m.detections)}, precision ${p(m.precision)}, ${r.secondsPerFunction?.toFixed(0)} s/function`,
      );
  const loo = d.leaveOneOut;
  console.log(
    `  leave-one-out over ${trainSpec}: false alarms ${p(loo.falseAlarms)}, detections ${p(loo.detections)}, precision ${p(loo.precision)}`,
  );
}
console.log(`written to ${out}`);
