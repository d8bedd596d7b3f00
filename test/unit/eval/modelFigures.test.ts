import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  describeFigures,
  calibrationFact,
  ladderModelDetail,
  largestFirst,
  modelFigures,
} from '../../../src/core/eval/modelFigures';
import { LADDER, LARGER_MODEL_ID, findLadderModel } from '../../../src/core/model/ladder/catalog';
import { SMALL_SAMPLE } from '../../../src/core/math/sampleSize';
import type { EvalResult } from '../../../src/core/eval/evaluation';

const shipped = JSON.parse(
  fs.readFileSync(path.join(__dirname, '../../../../bench/results/eval-prove-math500.json'), 'utf8'),
) as EvalResult;

test("the picker quotes the shipped evaluation's own figures for the model it measured", () => {
  const f = modelFigures([shipped], shipped.model.name);
  const accuracy = shipped.metrics as { accuracy: { k: number; n: number } };
  assert.deepEqual(
    { k: f.proveAccuracy?.k, n: f.proveAccuracy?.n },
    { k: accuracy.accuracy.k, n: accuracy.accuracy.n },
  );
  assert.equal(f.secondsPerProblem?.seconds, shipped.timing.secondsPerItem);
  assert.match(
    describeFigures(f) ?? '',
    new RegExp(
      `^${accuracy.accuracy.k} of ${accuracy.accuracy.n} MATH-500\\.jsonl answers right · \\d+ s per problem`,
    ),
  );
});

test('a model never evaluated has no figures, and an incomplete evaluation is not quoted', () => {
  assert.equal(describeFigures(modelFigures([shipped], 'SmolLM2-135M-Instruct')), null);
  assert.equal(modelFigures([{ ...shipped, complete: false }], shipped.model.name).proveAccuracy, null);
});

test('the picker quotes the largest evaluation of the model, not a smaller one made later', () => {
  const quick = JSON.parse(
    fs.readFileSync(path.join(__dirname, '../../../../bench/results/eval-prove-gsm8k.json'), 'utf8'),
  ) as EvalResult;
  // The shipped files themselves: the GSM8K run is newer and smaller than the MATH-500 one.
  assert.equal(quick.model.name, shipped.model.name);
  assert.ok(quick.updatedAt > shipped.updatedAt && quick.items.finished < shipped.items.finished);
  for (const order of [
    [quick, shipped],
    [shipped, quick],
  ]) {
    const f = modelFigures(order, shipped.model.name);
    assert.equal(f.proveAccuracy?.dataset, 'MATH-500.jsonl');
    assert.equal(f.proveAccuracy?.n, shipped.items.finished, 'the item count is the one quoted');
  }
  // On equal size the newer one is quoted.
  const again = { ...shipped, updatedAt: '2099-01-01T00:00:00.000Z', metrics: quick.metrics };
  assert.equal(modelFigures([shipped, again], shipped.model.name).proveAccuracy?.k, 3);
});

test("the shipped evaluations are listed largest first, the model's quoted figure among the first", () => {
  const dir = path.join(__dirname, '../../../../bench/results');
  const results = fs
    .readdirSync(dir)
    .filter((f) => /^eval-.*\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as EvalResult);
  const listed = largestFirst(results);
  for (let i = 1; i < listed.length; i++)
    assert.ok(listed[i - 1].items.finished >= listed[i].items.finished, 'by item count');
  // The picker quotes the first prove result of the list, the one the report offers first.
  const quoted = modelFigures(results, shipped.model.name).proveAccuracy!;
  const firstProve = listed.find((r) => r.kind === 'prove')!;
  assert.equal(path.basename(firstProve.dataset.path), quoted.dataset);
  assert.equal(firstProve.items.finished, quoted.n);
});

test("a model never evaluated shows the catalog's smoke test with its n and the few-items mark", () => {
  const larger = findLadderModel(LARGER_MODEL_ID)!;
  const none = modelFigures([shipped], larger.displayName);
  const detail = ladderModelDetail(larger, none, {});
  const { k, n } = larger.firstProblems;
  assert.ok(n < SMALL_SAMPLE, 'the catalog figure is a smoke test');
  assert.ok(detail.startsWith(`${k} of the first ${n} MATH-500 problems right (few items). `), detail);
  assert.doesNotMatch(detail, new RegExp(`\\b${k} of ${n}\\b`), 'never a bare k of n');
  assert.match(detail, /to download · [\d.]+ GB memory · \d+ tok\/s/);
  // No ladder entry hides a figure in its prose any more.
  for (const model of LADDER) assert.doesNotMatch(model.goodFor, /\d+ of \d+/);
});

test('an evaluated model leads with the shipped figures, and a small evaluation says few items', () => {
  const model = LADDER.find((m) => m.displayName === shipped.model.name)!;
  const f = modelFigures([shipped], model.displayName);
  const detail = ladderModelDetail(model, f, { diskBytes: 2_000_000 });
  assert.ok(detail.startsWith(describeFigures(f)!), detail);
  assert.doesNotMatch(detail, /first \d+ MATH-500|tok\/s/, 'the smoke test and catalog speed give way');
  assert.match(detail, / on disk · /);
  // Whether P(correct) is calibrated for it is said only when known.
  assert.equal(calibrationFact(undefined), null);
  assert.equal(calibrationFact(true), 'P(correct) calibrated');
  assert.equal(calibrationFact(false), 'P(correct) not calibrated for it');
  const small = { ...f, proveAccuracy: { k: 3, n: SMALL_SAMPLE - 1, dataset: 'gsm8k.jsonl' } };
  assert.match(
    describeFigures(small)!,
    new RegExp(`^3 of ${SMALL_SAMPLE - 1} gsm8k\\.jsonl answers right \\(few items\\)`),
  );
  const large = { ...f, proveAccuracy: { k: 3, n: SMALL_SAMPLE, dataset: 'gsm8k.jsonl' } };
  assert.doesNotMatch(describeFigures(large)!, /few items/);
});
