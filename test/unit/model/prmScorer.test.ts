import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { OnnxPrmScorer } from '../../../src/core/model/onnx/prmScorer';
import { PrmEngine } from '../../../src/core/model/onnx/prmEngine';
import { ModelError } from '../../../src/core/model/types';
import { tinyModelDir, tinyPrmDir } from './tinyModel';

interface Reference {
  problem: string;
  steps: string[];
  input_ids: number[];
  step_ends: number[];
  scores: number[];
}

const references = (): Reference[] =>
  JSON.parse(readFileSync(join(tinyPrmDir(), 'reference_scores.json'), 'utf8')) as Reference[];

let scorer: OnnxPrmScorer;
before(async () => {
  scorer = await OnnxPrmScorer.load({ modelDir: tinyPrmDir(), device: 'cpu', threads: 1 });
});
after(async () => {
  await scorer?.dispose();
});

test('tokenises a solution exactly as the trainer did: same ids, same step ends', async () => {
  const engine = await PrmEngine.load({ modelDir: tinyPrmDir(), device: 'cpu', threads: 1 });
  try {
    for (const ref of references()) {
      const { ids, stepEnds } = engine.encode(ref.problem, ref.steps);
      assert.deepEqual(ids, ref.input_ids);
      assert.deepEqual(stepEnds, ref.step_ends);
    }
  } finally {
    await engine.dispose();
  }
});

test('scores each step in the model worker with the probabilities PyTorch gives', async () => {
  assert.equal(scorer.info.kind, 'prm');
  assert.equal(scorer.info.name, 'tiny-prm');
  for (const ref of references()) {
    const scores = await scorer.scoreSteps(ref.problem, ref.steps);
    assert.equal(scores.length, ref.steps.length);
    scores.forEach((s, i) =>
      assert.ok(Math.abs(s - ref.scores[i]) < 1e-4, `step ${i}: ${s} vs ${ref.scores[i]}`),
    );
  }
});

test('a step is scored given only the steps before it: appending a step leaves earlier scores as they were', async () => {
  const ref = references()[0];
  const fewer = await scorer.scoreSteps(ref.problem, ref.steps.slice(0, 2));
  const all = await scorer.scoreSteps(ref.problem, ref.steps);
  fewer.forEach((s, i) => assert.ok(Math.abs(s - all[i]) < 1e-5));
});

test('no steps gives no scores; a cancelled request rejects with "aborted"', async () => {
  assert.deepEqual(await scorer.scoreSteps('Anything.', []), []);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    scorer.scoreSteps('Compute 1 + 1.', ['2'], { signal: controller.signal }),
    (e: ModelError) => e.code === 'aborted',
  );
  // The worker still serves after a cancellation.
  assert.equal((await scorer.scoreSteps('Compute 1 + 1.', ['1 + 1 = 2.'])).length, 1);
});

test('a generator folder, a missing folder and a damaged report are refused with a way out', async () => {
  await assert.rejects(
    OnnxPrmScorer.load({ modelDir: tinyModelDir(), device: 'cpu' }),
    (e: ModelError) => e.code === 'model-folder' && /not a process reward model/.test(e.message) && !!e.hint,
  );
  await assert.rejects(
    OnnxPrmScorer.load({ modelDir: join(tmpdir(), 'no-such-prm'), device: 'cpu' }),
    (e: ModelError) => e.code === 'model-folder' && /does not exist/.test(e.message),
  );
  const copy = mkdtempSync(join(tmpdir(), 'stepwise-prm-'));
  try {
    cpSync(tinyPrmDir(), copy, { recursive: true });
    writeFileSync(join(copy, 'stepwise_export.json'), '{"task": "token-classification-prm"');
    await assert.rejects(
      OnnxPrmScorer.load({ modelDir: copy, device: 'cpu' }),
      (e: ModelError) => e.code === 'model-folder' && /cannot be read/.test(e.message),
    );
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test('stepwise score-steps prints the PRM score of every step of a proof document', () => {
  const mainModule = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
  const script = `require(${JSON.stringify(mainModule)}).main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`;
  // The first two steps are one line each, as the document's step splitter sees them; the model is
  // causal, so their scores do not depend on the third.
  const ref = references()[0];
  const steps = ref.steps.slice(0, 2);
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-score-'));
  try {
    const doc = join(dir, 'proof.md');
    writeFileSync(doc, `## Problem\n\n${ref.problem}\n\n## Solution\n\n${steps.join('\n\n')}\n`);
    const r = spawnSync(
      process.execPath,
      ['-e', script, 'score-steps', doc, '--prm-dir', tinyPrmDir(), '--json'],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      scorer: { kind: string };
      steps: { text: string; score: number }[];
    };
    assert.equal(out.scorer.kind, 'prm');
    assert.deepEqual(
      out.steps.map((s) => s.text),
      steps,
    );
    out.steps.forEach((s, i) => assert.ok(Math.abs(s.score - ref.scores[i]) < 1e-4));
    const missing = spawnSync(process.execPath, ['-e', script, 'score-steps', doc], { encoding: 'utf8' });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /--prm-dir DIR is required/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
