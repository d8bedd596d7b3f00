import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { checkProof, proofToCheck } from '../../../src/core/prove/check';
import { ProveRunSchema } from '../../../src/core/prove/runSchema';
import type { Calibrator, FittedOn, JudgmentModel } from '../../../src/core/judgment/calibrator';
import { parseCalibrator } from '../../../src/core/judgment/calibrator';
import {
  DEFAULT_CALIBRATOR_FILE,
  loadShippedCalibrators,
  SHIPPED_CALIBRATOR_DIR,
} from '../../../src/core/judgment/judge';
import { chooseCalibrator } from '../../../src/core/prove/judgeRound';
import { calibratorText } from '../../../src/core/judgment/verdictText';
import { journalModels } from '../../../src/core/eval/proveJudgment';
import type { JournalHeader } from '../../../src/core/eval/journal';
import { resourcePath } from '../../../src/core/resources';
import { generatorOutput, judgeOutput, promptText, ScriptedBackend } from './scriptedBackend';

const PROBLEM = 'Prove that the sum of two even integers is even.';
const PROOF = 'Let a = 2m and b = 2n.\n\nThen a + b = 2(m + n), which is even.';

/** A calibrator over the verifier score alone, P = σ(bias + 6 · score), fitted on `on`. */
function calibratorOn(on: FittedOn | undefined, bias: number, source: string) {
  const model: JudgmentModel = {
    features: ['verifierScore', 'truncated', 'boxed'],
    l2: 1,
    mean: [0, 0, 0],
    scale: [1, 1, 1],
    weights: [6, 0, 0],
    bias,
    map: { kind: 'identity' },
    fit: { rows: 0, positives: 0, cvBrier: {} },
  };
  const calibrator: Calibrator = {
    schema: 'stepwise.judgment-calibrator',
    version: 1,
    source: {},
    ...(on ? { fittedOn: on } : {}),
    l2: [1],
    models: [model],
  };
  return { calibrator, source };
}

// The scripted backend is named "scripted": one calibrator was fitted on it, the default on another.
const onOther = calibratorOn({ generator: 'Qwen-0.5B', verifier: 'Qwen-0.5B' }, -4, 'default.json');
const onScripted = calibratorOn({ generator: 'scripted', verifier: 'scripted' }, -2, 'scripted.json');
const backend = () =>
  new ScriptedBackend(({ input }) =>
    /You are grading a proof|check the evaluation/.test(promptText(input))
      ? [judgeOutput('1')]
      : [generatorOutput(PROOF, '1')],
  );
const prove = (calibrator: Parameters<typeof proveAndVerify>[1]['calibrator']) =>
  proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, stepScores: false, metaVerify: false } },
    { generator: backend(), calibrator },
  );

test('a run is judged by the shipped calibrator fitted on its models, not by the default', async () => {
  const run = await prove([onOther, onScripted]);
  const j = run.iterations[0].candidates[0].judgment!;
  assert.equal(j.calibrator.source, 'scripted.json');
  assert.equal(j.calibrator.otherModels, false);
  assert.ok(Math.abs(j.pCorrect - 1 / (1 + Math.exp(-4))) < 1e-3, `P = ${j.pCorrect}: σ(−2 + 6)`);
  assert.match(calibratorText(j), /fitted on scripted's proofs of labelled problems/);
  assert.equal(ProveRunSchema.safeParse(JSON.parse(JSON.stringify(run))).success, true);
});

test('with none fitted on its models, the default judges and the run says P is not calibrated for them', async () => {
  for (const choice of [[onOther], onOther]) {
    const run = await prove(choice);
    const j = run.iterations[0].candidates[0].judgment!;
    assert.equal(j.calibrator.source, 'default.json');
    assert.equal(j.calibrator.otherModels, true);
    assert.deepEqual(j.calibrator.fittedOn, { generator: 'Qwen-0.5B', verifier: 'Qwen-0.5B' });
    assert.match(calibratorText(j), /fitted on Qwen-0\.5B, not on this run's models/);
    assert.match(calibratorText(j), /not calibrated for these models/);
  }
  // A file that names no models cannot be said to be another's: no warning.
  const unnamed = (await prove(calibratorOn(undefined, -4, 'old.json'))).iterations[0].candidates[0]
    .judgment!;
  assert.equal(unnamed.calibrator.otherModels, false);
  assert.match(calibratorText(unnamed), /^calibrator old\.json: fitted on labelled problems/);
});

test("a checked proof is matched on the verifier alone: a person's proof has no generator", async () => {
  const found = proofToCheck('## Problem\n\n' + PROBLEM + '\n\n## Solution\n\n' + PROOF + '\n');
  assert.ok('proof' in found);
  const onVerifier = calibratorOn({ generator: 'Qwen-0.5B', verifier: 'scripted' }, -2, 'verifier.json');
  const run = await checkProof(found, { verifier: backend(), calibrator: [onOther, onVerifier] });
  const j = run.iterations[0].candidates[0].judgment!;
  assert.equal(j.calibrator.source, 'verifier.json');
  assert.equal(j.calibrator.otherModels, false);
});

test('the shipped calibrators: the default first, each naming the models it was fitted on', () => {
  const shipped = loadShippedCalibrators();
  assert.equal(shipped[0].source, DEFAULT_CALIBRATOR_FILE);
  for (const s of shipped) assert.ok(s.calibrator.fittedOn, `${s.source} names no models`);
  // The default was fitted on the product's default model.
  assert.equal(shipped[0].calibrator.fittedOn!.generator, 'Qwen2.5-Coder-0.5B-Instruct');
  const names = shipped.map((s) => `${s.calibrator.fittedOn!.generator}/${s.calibrator.fittedOn!.verifier}`);
  assert.equal(new Set(names).size, names.length, 'two shipped calibrators for the same models');
  // The larger ladder model has one of its own (fitted on its held-out MATH-500 run).
  const larger = 'Qwen2.5-Coder-1.5B-Instruct';
  const chosen = chooseCalibrator(shipped, { generator: larger, verifier: larger });
  assert.equal(chosen?.calibrator.fittedOn?.generator, larger);
});

test('a broken shipped calibrator, or a folder without the default, is an error that names the file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-calibrators-'));
  try {
    assert.throws(() => loadShippedCalibrators(dir), /has no calibrator\.json/);
    fs.copyFileSync(resourcePath(DEFAULT_CALIBRATOR_FILE), path.join(dir, 'calibrator.json'));
    fs.writeFileSync(path.join(dir, 'calibrator-other.json'), '{"schema": "stepwise.judgment-calibrator"');
    assert.throws(() => loadShippedCalibrators(dir), /calibrator-other\.json/);
    fs.writeFileSync(path.join(dir, 'calibrator-other.json'), JSON.stringify(onScripted.calibrator));
    const loaded = loadShippedCalibrators(dir);
    assert.deepEqual(
      loaded.map((l) => l.source),
      [`${SHIPPED_CALIBRATOR_DIR}/calibrator.json`, `${SHIPPED_CALIBRATOR_DIR}/calibrator-other.json`],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a calibrator file whose fittedOn names no verifier is refused', () => {
  const bad = { ...onScripted.calibrator, fittedOn: { generator: 'scripted' } };
  const parsed = parseCalibrator(JSON.parse(JSON.stringify(bad)));
  assert.ok('error' in parsed && /fittedOn/.test(parsed.error));
});

test('a calibrator fitted from journals names their models, unless they ran with different ones', () => {
  const header = (model: string, verifier: string): JournalHeader => ({
    type: 'header',
    schema: 'stepwise.eval-journal',
    version: 1,
    kind: 'prove',
    fingerprint: { kind: 'prove', model, verifier },
    createdAt: '2026-12-07T00:00:00Z',
  });
  assert.deepEqual(journalModels([header('A', 'A'), header('A', 'A')]), { generator: 'A', verifier: 'A' });
  assert.equal(journalModels([header('A', 'A'), header('B', 'B')]), null);
  assert.equal(journalModels([header('A', 'A'), null]), null);
});
