import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LabelStore } from '../../../src/core/labels/store';
import { readStepLabels, summarizePrm, type PrmItemResult } from '../../../src/core/eval/prmEval';
import { evalPrm } from '../../../src/core/eval/suites';
import { outputPaths } from '../../../src/core/eval/evaluation';
import { OnnxPrmScorer } from '../../../src/core/model/onnx/prmScorer';
import { tinyPrmDir } from '../model/tinyModel';
import { scratchDir } from '../scratchDir';

const tmp = () => scratchDir('stepwise-prm-eval-');

function prm800kLine(problem: string, steps: [string, number][], finish: string): string {
  return JSON.stringify({
    labeler: 'l1',
    question: { problem, ground_truth_answer: '4' },
    label: {
      steps: steps.map(([text, rating]) => ({
        completions: [{ text, rating, flagged: false }],
        chosen_completion: 0,
      })),
      finish_reason: finish,
    },
  });
}

/** Two PRM800K solutions: one with an error at step 2 (steps after it are dropped), one without. */
function writePrm800k(dir: string): string {
  const file = path.join(dir, 'phase2.jsonl');
  fs.writeFileSync(
    file,
    [
      prm800kLine(
        'What is 2+2?',
        [
          ['2+2 = 5.', 1],
          ['So the answer is 5.', -1],
        ],
        'found_error',
      ),
      prm800kLine(
        'What is 3+1?',
        [
          ['3+1 = 4.', 1],
          ['Neutral remark.', 0],
          ['The answer is 4.', 1],
        ],
        'solution',
      ),
      'garbage',
    ].join('\n'),
  );
  return file;
}

test('PRM800K and Stepwise label files are read as solutions cut after their first wrong step', async () => {
  const dir = tmp();
  const prm = readStepLabels(writePrm800k(dir));
  assert.equal(prm.format, 'prm800k');
  assert.deepEqual(
    prm.solutions.map((s) => s.steps.map((x) => x.rating)),
    [
      [1, -1],
      [1, 0, 1],
    ],
  );
  assert.equal(prm.problems.length, 1);

  const store = new LabelStore(path.join(dir, 'labels'));
  const base = { problemId: 'p1', solutionId: 's1', source: 'cli' as const };
  await store.append({
    ...base,
    problemText: 'Show 1 < 2.',
    stepIndex: 0,
    stepHash: '0'.repeat(16),
    stepText: 'a',
    rating: 1,
  });
  await store.append({ ...base, stepIndex: 1, stepHash: '1'.repeat(16), stepText: 'b', rating: -1 });
  await store.append({ ...base, stepIndex: 2, stepHash: '2'.repeat(16), stepText: 'c', rating: 1 });
  const ours = readStepLabels(store.file);
  assert.equal(ours.format, 'stepwise');
  assert.deepEqual(ours.solutions, [
    {
      id: 's1',
      problem: 'Show 1 < 2.',
      steps: [
        { text: 'a', rating: 1 },
        { text: 'b', rating: -1 },
      ],
    },
  ]);
  fs.writeFileSync(path.join(dir, 'other.jsonl'), '{"hello": 1}\n');
  assert.throws(() => readStepLabels(path.join(dir, 'other.jsonl')), /neither Stepwise labels nor PRM800K/);
});

test('first-error accuracy treats "no error" as a class; F1 counts flagged wrong steps', () => {
  const items: PrmItemResult[] = [
    { id: 'a', ratings: [1, -1], scores: [0.9, 0.2], firstErrorLabel: 1, firstErrorPredicted: 1 },
    { id: 'b', ratings: [1, 0, 1], scores: [0.9, 0.4, 0.8], firstErrorLabel: -1, firstErrorPredicted: 1 },
    { id: 'c', ratings: [1, 1], scores: [0.7, 0.6], firstErrorLabel: -1, firstErrorPredicted: -1 },
  ];
  const m = summarizePrm(items, 0.5);
  assert.equal(m.steps, 7);
  assert.equal(m.firstError.accuracy.k, 2);
  assert.equal(m.firstError.onErroneous.value, 1);
  assert.equal(m.firstError.onCorrect.value, 0.5);
  assert.equal(m.firstError.f1, (2 * 1 * 0.5) / 1.5);
  assert.deepEqual([m.errorDetection.tp, m.errorDetection.fp, m.errorDetection.fn], [1, 1, 0]);
  assert.equal(m.stepRoc.auroc, 1, 'the wrong step has the lowest score');
});

test('eval prm with a real (tiny) PRM writes results, journal and report, and resumes without rescoring', async () => {
  const dir = tmp();
  const labels = writePrm800k(dir);
  const out = outputPaths(path.join(dir, 'eval', 'prm.json'));
  const scorer = await OnnxPrmScorer.load({ modelDir: tinyPrmDir(), device: 'cpu', threads: 1 });
  try {
    const run = { command: 'test', out, concurrency: 1, labels, scorer, threshold: 0.5, device: 'cpu' };
    const first = await evalPrm(run);
    assert.equal(first.result.complete, true);
    assert.equal(first.result.items.finished, 2);
    const metrics = first.result.metrics;
    assert.equal(metrics.steps, 5);
    assert.ok(metrics.stepRoc.auroc !== null);
    assert.ok(fs.existsSync(out.result) && fs.existsSync(out.journal) && fs.existsSync(out.report));
    let progressCalls = 0;
    const second = await evalPrm({ ...run, onProgress: () => progressCalls++ });
    assert.equal(progressCalls, 1, 'only the opening report: nothing was left to score');
    assert.deepEqual(second.result.metrics, metrics);
  } finally {
    await scorer.dispose();
  }
});
