import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { LearnedStepScorer } from '../../../src/core/judgment/learnedStepScorer';
import { STEP_HEAD_SCHEMA, STEP_HEAD_VERSION, type StepHead } from '../../../src/core/judgment/stepHead';
import { TokenJournal } from '../../../src/core/judgment/tokenJournal';
import { OnnxBackend } from '../../../src/core/model/onnx/index';
import type { ChatMessage } from '../../../src/core/model/types';
import { tinyModelDir } from '../model/tinyModel';

let model: OnnxBackend;
before(async () => {
  model = await OnnxBackend.load({ modelDir: tinyModelDir(), variant: 'fp32', device: 'auto', threads: 1 });
});
after(async () => {
  await model?.dispose();
});

const head = (name: string): StepHead => ({
  schema: STEP_HEAD_SCHEMA,
  version: STEP_HEAD_VERSION,
  kind: 'step-surprise',
  model: name,
  features: ['minLogprob'],
  l2: 1,
  mean: [-3],
  scale: [2],
  weights: [1.5],
  bias: 1,
  threshold: 0.5,
  fit: { solutions: 2, steps: 4, wrongSteps: 1, cvLogLoss: 0.5, cvFirstError: 0.5 },
  source: {},
});

const promptOf = (problem: string): ChatMessage[] => [{ role: 'user', content: `Solve: ${problem}` }];

test('the step head scores each step of a real model’s pass, and a journal spares the second pass', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-step-head-'));
  try {
    const file = path.join(dir, 'tokens.jsonl');
    const steps = ['We have $2 + 3 = 5$.', 'So the answer is $\\boxed{5}$.'];
    const scorer = new LearnedStepScorer(
      model,
      head(model.info.name),
      promptOf,
      new TokenJournal(file, model.info.name),
    );
    const scores = await scorer.scoreSteps('What is 2 + 3?', steps);
    assert.equal(scores.length, 2);
    assert.ok(scores.every((s) => s > 0 && s < 1));
    // The kept pass is read back by a scorer whose model would refuse any new call.
    const refusing = Object.create(model) as OnnxBackend;
    refusing.score = () => Promise.reject(new Error('scored again'));
    const again = new LearnedStepScorer(
      refusing,
      head(model.info.name),
      promptOf,
      new TokenJournal(file, model.info.name),
    );
    assert.deepEqual(await again.scoreSteps('What is 2 + 3?', steps), scores);
    assert.throws(
      () => new LearnedStepScorer(model, head('another-model'), promptOf),
      /fitted on another-model/,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function cli(args: string[]) {
  const mainModule = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
  const script = `require(${JSON.stringify(mainModule)}).main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`;
  return spawnSync(process.execPath, ['-e', script, ...args], { encoding: 'utf8', timeout: 60_000 });
}

test('train-steps and eval prm --step-scorer refuse bad files before any model loads', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-step-head-'));
  try {
    const labels = path.join(dir, 'labels.jsonl');
    fs.writeFileSync(labels, '{"neither": true}\n');
    const noModel = ['--model-dir', path.join(dir, 'no-model')];
    const out = path.join(dir, 'head.json');
    let r = cli(['judgment', 'train-steps', '--labels', labels, '--out', out, ...noModel]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /neither Stepwise labels nor PRM800K/);
    assert.equal(fs.existsSync(out), false);
    const bad = path.join(dir, 'bad-head.json');
    fs.writeFileSync(bad, '{"schema":"something else"}');
    r = cli(['eval', 'prm', '--labels', labels, '--step-scorer', bad, ...noModel]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--step-scorer: .*bad-head\.json: not a learned step head/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
