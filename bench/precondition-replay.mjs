// Replays the precondition rule (src/core/tests/preconditions.ts: a test the user's function raises
// on, on an input shaped unlike every docstring example, is not a confirmed failure) on
// `stepwise eval tests` journals written before the journals kept what it needs, without a model.
//   node bench/precondition-replay.mjs --train RUN.json:FROM-TO --heldout RUN.json:FROM-TO ... \
//        [--examples bench/results/test-verdicts/example-replay.json] [--threshold 0.727] \
//        [--out bench/results/test-verdicts/precondition-replay.json]
// What an old journal allows: every test the reference fails is kept as written with what the
// sandbox said (`tests.invalid`), so false alarms under the rule are exact. The tests a mutant fails
// and the reference passes were not kept, nor whether the mutant raised on them, so detections
// under the rule are given as bounds: "at least" takes every such failure as a raise on an input
// unlike the examples (dropped), "at most" takes none as one (kept). Journals that keep the
// matrix's `raised` and `covered` rows (eval tests from this rule on) are exact on both sides.
// Each slice also gives the product's figures under every rule (`everyRule`: mostSetAside and values
// on inputs unlike every example too, at the upper bound of detections), beside the same without the
// last rule (`everyRuleValuesMayConfirm`) and the false alarms that rule clears.
// Run `npx tsc -p tsconfig.json` first: the rule and the metrics are the product's own (out/).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { itemsFileOf, journalItems } from './journal-items.mjs';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { verdictMetrics } = require(path.join(root, 'out/src/core/eval/testVerdicts.js'));
const { decodeRow, exampleFailsFromMatrix } = require(path.join(root, 'out/src/core/eval/passMatrix.js'));
const { inputsCovered, raisedOn } = require(path.join(root, 'out/src/core/tests/preconditions.js'));
const { DEFAULT_CONFIRM_THRESHOLD } = require(path.join(root, 'out/src/core/tests/evidence.js'));

const args = process.argv.slice(2);
const take = (flag) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
const train = take('--train');
const heldout = take('--heldout');
if (!train.length && !heldout.length)
  throw new Error(
    'usage: --train RUN.json:FROM-TO --heldout RUN.json:FROM-TO ... [--examples FILE] [--out FILE]',
  );
const threshold = Number(take('--threshold')[0] ?? DEFAULT_CONFIRM_THRESHOLD);
const out = take('--out')[0] ?? 'bench/results/test-verdicts/precondition-replay.json';

// Docstring examples replayed on journals from before they were kept (bench/example-replay.mjs).
const replayed = new Map(
  take('--examples').flatMap((file) =>
    JSON.parse(fs.readFileSync(file, 'utf8'))
      .items.filter((it) => it.sameMutants && it.examples)
      .map((it) => [it.id, it.examples]),
  ),
);
const fails = (s) => s === 'failed' || s === 'error' || s === 'timeout';

/** One journal item read three ways: without the rule, and under it at its two bounds. */
async function readItem(r) {
  const examples = r.matrix?.examples ?? replayed.get(r.id) ?? null;
  const exampleFails =
    r.verdicts.exampleFails ??
    (examples ? exampleFailsFromMatrix({ mutants: examples.mutants, examples }) : undefined);
  const base = { ...r, verdicts: { ...r.verdicts, ...(exampleFails ? { exampleFails } : {}) } };
  const exampleLines = examples?.lines ?? [];
  // Exact where the journal kept the rule's rows; which inputs are covered is recomputed from the
  // kept test lines, so a journal written under an earlier version of the rule replays this one.
  if (r.matrix?.raised && r.matrix?.covered) {
    const tests = r.matrix.tests ?? [];
    const covered = await inputsCovered(r.entryPoint, 'python', tests, exampleLines);
    const recover = (row, fails_) => {
      const failing = decodeRow(row).flatMap((s, t) => (fails(s) ? [t] : []));
      if (failing.length !== fails_.length) throw new Error(`${r.id}: matrix and verdicts disagree`);
      return fails_.map((f, i) => ({ ...f, covered: covered[failing[i]] ?? f.covered }));
    };
    const now = tests.length
      ? {
          ...base,
          verdicts: {
            ...base.verdicts,
            referenceFails: recover(r.matrix.reference, base.verdicts.referenceFails),
            mutantFails: base.verdicts.mutantFails.map((list, k) => recover(r.matrix.mutants[k], list)),
          },
        }
      : base;
    return { exact: true, base: now, low: now, high: now };
  }
  // The tests the reference fails, in the order of referenceFails (both skip what is not a failure).
  const invalid = (r.tests.invalid ?? []).filter((t) => fails(t.status));
  if (invalid.length !== r.verdicts.referenceFails.length)
    throw new Error(
      `${r.id}: ${invalid.length} failing tests kept, ${r.verdicts.referenceFails.length} in the verdicts`,
    );
  const covered = await inputsCovered(
    r.entryPoint,
    'python',
    invalid.map((t) => t.test),
    exampleLines,
  );
  const referenceFails = r.verdicts.referenceFails.map((f, i) => ({
    ...f,
    raised:
      invalid[i].status === 'failed' && !/raises/.test(invalid[i].test) && !!raisedOn(invalid[i].output),
    covered: covered[i],
  }));
  // At least: every mutant failure a raise on an uncovered input (dropped by both rules); at most:
  // none on an uncovered input (kept by both).
  const mutantsAs = (raised) =>
    r.verdicts.mutantFails.map((list) => list.map((f) => ({ ...f, raised, covered: !raised })));
  const with_ = (mutantFails) => ({ ...base, verdicts: { ...base.verdicts, referenceFails, mutantFails } });
  return { exact: false, base, low: with_(mutantsAs(true)), high: with_(mutantsAs(false)) };
}

async function slice(spec, role) {
  const m = /^(.*):(\d+)-(\d+)$/.exec(spec);
  if (!m) throw new Error(`a slice is RUN.json:FROM-TO, not ${spec}`);
  const [, file, from, to] = m;
  const entries = journalItems(itemsFileOf(file)).filter(
    (e) => e.index >= Number(from) && e.index < Number(to) && e.result?.verdicts,
  );
  const items = [];
  for (const e of entries) items.push(await readItem(e.result));
  // Under the rules before it only (misreadMayConfirm, values on uncovered inputs confirming): this
  // replay isolates the precondition rule on raises.
  const only = { misreadMayConfirm: true, valuesOutsideExamplesMayConfirm: true };
  const metrics = (list, preconditions) =>
    verdictMetrics(list, threshold, undefined, { ...only, preconditions });
  const before = metrics(
    items.map((i) => i.base),
    false,
  );
  const low = metrics(
    items.map((i) => i.low),
    true,
  );
  const high = metrics(
    items.map((i) => i.high),
    true,
  );
  // The product's figures: every rule, the ones after it (mostSetAside, values on inputs unlike
  // every example) too, at the upper bound; and every rule but the last, which it is compared with.
  const product = verdictMetrics(
    items.map((i) => i.high),
    threshold,
  );
  const beforeValues = verdictMetrics(
    items.map((i) => i.high),
    threshold,
    undefined,
    { valuesOutsideExamplesMayConfirm: true },
  );
  const valuesCleared = items
    .filter(
      (i) =>
        verdictMetrics([i.high], threshold, undefined, { valuesOutsideExamplesMayConfirm: true }).falseAlarms
          .k === 1 && verdictMetrics([i.high], threshold).falseAlarms.k === 0,
    )
    .map((i) => i.base.id);
  // The functions whose false alarm the rule removes, and the tests it turns unconfirmed.
  const cleared = items
    .filter(
      (i) =>
        verdictMetrics([i.base], threshold, undefined, { ...only, preconditions: false }).falseAlarms.k ===
          1 && verdictMetrics([i.high], threshold, undefined, only).falseAlarms.k === 0,
    )
    .map((i) => i.base.id);
  return {
    slice: spec,
    role,
    functions: items.length,
    exact: items.filter((i) => i.exact).length,
    withoutRule: {
      falseAlarms: before.falseAlarms,
      detections: before.detections,
      precision: before.precision,
    },
    withRule: {
      falseAlarms: high.falseAlarms,
      // Bounds where the journal did not keep the mutants' raises (see the head of this file).
      detections: { atLeast: low.detections, atMost: high.detections },
      precision: { ofAtLeast: low.precision, ofAtMost: high.precision },
    },
    falseAlarmsCleared: cleared,
    everyRule: {
      falseAlarms: product.falseAlarms,
      detections: product.detections,
      precision: product.precision,
    },
    everyRuleValuesMayConfirm: {
      falseAlarms: beforeValues.falseAlarms,
      detections: beforeValues.detections,
      precision: beforeValues.precision,
    },
    falseAlarmsClearedByValues: valuesCleared,
  };
}

const slices = [];
for (const s of train) slices.push(await slice(s, 'train'));
for (const s of heldout) slices.push(await slice(s, 'heldout'));
const doc = {
  command: `node bench/precondition-replay.mjs ${args.join(' ')}`,
  createdAt: new Date().toISOString(),
  threshold,
  slices,
};
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
const p = (x) => `${x.k}/${x.n}`;
for (const s of slices)
  console.log(
    `${s.role} ${s.slice}: false alarms ${p(s.withoutRule.falseAlarms)} -> ${p(s.withRule.falseAlarms)} (cleared ${s.falseAlarmsCleared.join(', ') || 'none'}); detections ${p(s.withoutRule.detections)} -> between ${p(s.withRule.detections.atLeast)} and ${p(s.withRule.detections.atMost)}; precision ${p(s.withoutRule.precision)} -> ${p(s.withRule.precision.ofAtLeast)} .. ${p(s.withRule.precision.ofAtMost)}${s.exact ? ` (${s.exact} exact)` : ''}; every rule: false alarms ${p(s.everyRule.falseAlarms)}, detections ${p(s.everyRule.detections)}, precision ${p(s.everyRule.precision)} (values on unlike inputs confirming: ${p(s.everyRuleValuesMayConfirm.falseAlarms)}, ${p(s.everyRuleValuesMayConfirm.detections)}, ${p(s.everyRuleValuesMayConfirm.precision)}; cleared ${s.falseAlarmsClearedByValues.join(', ') || 'none'})`,
  );
console.log(`written to ${out}`);
