import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LabelStore } from '../../../src/core/labels/index';
import {
  NoTrainingDataError,
  prepareTrainingData,
  trainingRunDir,
} from '../../../src/core/trainingData/prepare';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { saveRun } from '../../../src/core/prove/runStore';
import { runsDir } from '../../../src/core/runs/folder';
import { generatorOutput, ScriptedBackend } from '../prove/scriptedBackend';
import { scratchDir } from '../scratchDir';

const workspace = () => scratchDir('stepwise-train-data-');
const readJsonl = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const STEPS = ['x = 2', 'so x + 1 = 4', 'done'];

/** Labels the first steps of one solution to "Find x + 1 when x = 2." with `ratings`, in order. */
async function labelSolution(ws: string, solutionId: string, ratings: readonly (1 | -1)[]): Promise<void> {
  const store = new LabelStore(path.join(ws, '.stepwise', 'labels'));
  for (const [stepIndex, rating] of ratings.entries())
    await store.append({
      problemId: 'p1',
      problemText: 'Find x + 1 when x = 2.',
      solutionId,
      stepIndex,
      stepHash: '0123456789abcdef',
      stepText: STEPS[stepIndex]!,
      rating,
      source: 'cli',
    });
}

/** Writes `text` as `file` of the practice set `name`, as a practice run leaves it. */
function writePracticeFile(ws: string, name: string, file: string, text: string): void {
  fs.mkdirSync(path.join(ws, '.stepwise', 'practice', name), { recursive: true });
  fs.writeFileSync(path.join(ws, '.stepwise', 'practice', name, file), text);
}

test('the run folder is .stepwise/training/<timestamp>-<job>', () => {
  const dir = trainingRunDir('/ws', 'prm', new Date('2026-01-02T03:04:05.678Z'));
  assert.equal(dir, path.join('/ws', '.stepwise', 'training', '2026-01-02T03-04-05-678Z-prm'));
});

test('prm and orm: step labels become TRL stepwise rows in the run folder', async () => {
  const ws = workspace();
  await labelSolution(ws, 'doc:a.md', [1, -1]);
  const runDir = trainingRunDir(ws, 'prm');
  const data = await prepareTrainingData('prm', ws, runDir);
  assert.equal(data.count, 1);
  assert.deepEqual(data.args, ['--data', path.join(runDir, 'labels.trl.jsonl')]);
  const [row] = readJsonl(data.args[1]!);
  assert.deepEqual(row!.completions, ['x = 2', 'so x + 1 = 4']);
  assert.deepEqual(row!.labels, [1, -1]);
  // The outcome model reads the same rows (its job keeps one label per solution).
  const orm = await prepareTrainingData('orm', ws, trainingRunDir(ws, 'orm'));
  assert.deepEqual(readJsonl(orm.args[1]!), [row]);
});

test('verifier: answer-checked Prove candidates and proofs with a wrong step become scored proofs', async () => {
  const ws = workspace();
  for (const [proof, problem] of [
    ['2 + 2 = 4, so $\\boxed{4}$.', 'What is 2 + 2?\n\nAnswer: 4'],
    ['2 + 2 = 5, so $\\boxed{5}$.', 'What is 2 + 2?\n\nAnswer: 4'],
    ['Trivially true.', 'Prove that 1 = 1.'], // no reference answer: no outcome label
  ] as const) {
    const backend = new ScriptedBackend(() => [generatorOutput(proof, '1')]);
    const run = await proveAndVerify(
      { problem, options: { maxIterations: 1, stepScores: false } },
      { generator: backend },
    );
    await saveRun(run, runsDir(ws));
  }
  await labelSolution(ws, 'doc:wrong.md', [1, -1, 1]);
  await labelSolution(ws, 'doc:right-so-far.md', [1, 1]);
  const runDir = trainingRunDir(ws, 'verifier');
  const data = await prepareTrainingData('verifier', ws, runDir);
  assert.deepEqual(data.args, ['--data', path.join(runDir, 'scored-proofs.jsonl')]);
  const rows = readJsonl(data.args[1]!);
  assert.equal(data.count, rows.length);
  const byLabel = (label: boolean) =>
    rows.filter((r) => r.label === label).map((r) => [r.problem as string, r.proof as string] as const);
  assert.equal(byLabel(true).length, 1);
  assert.match(byLabel(true)[0]![1], /boxed\{4\}/);
  assert.deepEqual(
    byLabel(false).map(([problem, proof]) => [problem, proof.includes('boxed{5}') ? 'five' : proof]),
    [
      ['What is 2 + 2?', 'five'],
      // The labelled proof stops at its wrong step; an all-right labelled prefix says nothing of the whole proof.
      ['Find x + 1 when x = 2.', 'x = 2\n\nso x + 1 = 4'],
    ],
  );
});

test('dpo: pairs from every practice set are joined; a broken line is skipped and reported', async () => {
  const ws = workspace();
  for (const [name, text] of [
    ['a', '{"prompt":"p1","chosen":"c","rejected":"r"}\n'],
    ['b', '{"prompt":"p2","chosen":"c","rejected":"r"}\nnot json\n'],
  ] as const)
    writePracticeFile(ws, name, 'dpo-pairs.jsonl', text);
  const data = await prepareTrainingData('dpo', ws, trainingRunDir(ws, 'dpo'));
  assert.equal(data.count, 2);
  assert.deepEqual(
    readJsonl(data.args[1]!).map((r) => r.prompt),
    ['p1', 'p2'],
  );
  assert.equal(data.skipped.length, 1);
  assert.match(data.skipped[0]!, /line 2: not JSON/);
});

test('question-generator: the R_G rows of every practice set are joined', async () => {
  const ws = workspace();
  for (const [name, reward] of [
    ['a', 0.9],
    ['b', 0.2],
  ] as const) {
    const row = { prompt: 'Propose a problem.', completion: `Problem: ${name}`, reward, kept: reward > 0.5 };
    writePracticeFile(ws, name, 'generator-rewards.jsonl', JSON.stringify(row) + '\n');
  }
  const runDir = trainingRunDir(ws, 'question-generator');
  const data = await prepareTrainingData('question-generator', ws, runDir);
  assert.deepEqual(data.args, ['--data', path.join(runDir, 'generator-rewards.jsonl')]);
  assert.deepEqual(
    readJsonl(data.args[1]!).map((r) => r.reward),
    [0.9, 0.2],
  );
});

test('no data gives an error that says what to do, for each job', async () => {
  const ws = workspace();
  for (const job of ['prm', 'orm', 'verifier', 'grpo', 'dpo', 'question-generator', 'sft-format'] as const)
    await assert.rejects(
      prepareTrainingData(job, ws, trainingRunDir(ws, job)),
      (err: unknown) => err instanceof NoTrainingDataError && err.hint.length > 0,
    );
});
