import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { MathProblem } from '../../../src/core/eval/datasets';
import { EvalJournal, EvalSettingsError } from '../../../src/core/eval/journal';
import { LabelStore } from '../../../src/core/labels/store';
import { stepHash } from '../../../src/core/steps/split';
import { labellingFingerprint, labelsMissingFromStore, problemsToLabel } from '../../../src/core/loop/loop';
import type { LabellingSettings, SampledSolution } from '../../../src/core/loop/solutions';
import { scratchDir } from '../scratchDir';

const problem = (id: string): MathProblem => ({ id, problem: `Problem ${id}`, answer: '1' });
const sample = (id: string, correct: boolean): SampledSolution => ({
  solutionId: id,
  text: `Solution ${id}`,
  finalAnswer: correct ? '1' : '2',
  correct,
  finishReason: 'stop',
  selfScore: null,
});

// a: solved once in three; b: never solved; c: solved every time; d: never solved; e: solved once.
const problems = ['a', 'b', 'c', 'd', 'e'].map(problem);
const sampled = [
  [sample('a1', false), sample('a2', true), sample('a3', false)],
  [sample('b1', false), sample('b2', false)],
  [sample('c1', true)],
  [sample('d1', false)],
  [sample('e1', false), sample('e2', true)],
];

test('skip labels only problems some sample solved, with all of their samples, in order', () => {
  const chosen = problemsToLabel(problems, sampled, 'skip');
  assert.deepEqual(
    chosen.problems.map((p) => p.id),
    ['a', 'c', 'e'],
  );
  // The wrong samples of a solved problem are what the probes find first errors in: they stay.
  assert.deepEqual(
    chosen.sampled.map((s) => s.map((x) => x.solutionId)),
    [['a1', 'a2', 'a3'], ['c1'], ['e1', 'e2']],
  );
  assert.equal(chosen.skipped, 2);
});

test('label keeps every problem, as hard estimation did before the policy existed', () => {
  const chosen = problemsToLabel(problems, sampled, 'label');
  assert.deepEqual(
    chosen.problems.map((p) => p.id),
    ['a', 'b', 'c', 'd', 'e'],
  );
  assert.equal(chosen.sampled[1].length, 2);
  assert.equal(chosen.skipped, 0);
});

test('the limit counts labelled problems, so held-out labels cover as many problems as asked', () => {
  const chosen = problemsToLabel(problems, sampled, 'skip', 2);
  assert.deepEqual(
    chosen.problems.map((p) => p.id),
    ['a', 'c'],
  );
  // Only the unsolved problem met before the limit counts as skipped; d and e were never reached.
  assert.equal(chosen.skipped, 1);
  assert.deepEqual(
    problemsToLabel(problems, sampled, 'label', 2).problems.map((p) => p.id),
    ['a', 'b'],
  );
});

test('a label journal written before the policy existed resumes with label and is refused with skip', () => {
  const dir = scratchDir('stepwise-label-policy-');
  const file = path.join(dir, 'label-train.jsonl');
  const settings = {
    samplesPerStep: 4,
    search: 'first-error',
    maxTokens: 384,
    temperature: 0.8,
    seed: 0,
  } as const;
  const base = { model: 'Qwen2.5-Coder-0.5B-Instruct', plan: 'solution, final answer, self-evaluation' };
  // The old journal's fingerprint, as the loop wrote it then: no `unsolved` key.
  const old = EvalJournal.open(file, 'loop-label', { ...base, ...settings });
  old.append({ index: 0, id: 'auto-1', result: { steps: 3 }, ms: 1 });
  old.close();

  const withPolicy = (unsolved: LabellingSettings['unsolved']) =>
    EvalJournal.open(file, 'loop-label', { ...base, ...labellingFingerprint({ ...settings, unsolved }) });
  const resumed = withPolicy('label');
  assert.equal(resumed.finished.size, 1, 'the finished label item is kept');
  resumed.close();
  assert.throws(
    () => withPolicy('skip'),
    (e: unknown) => e instanceof EvalSettingsError && /unsolved/.test(e.message),
  );
});

test('solutions the journal counts as labelled but the store lacks are reported, so a resumed loop cannot train on less', async () => {
  const store = new LabelStore(scratchDir('stepwise-label-missing-'));
  const text = 'Step one.';
  await store.append({
    problemId: 'a',
    solutionId: 'a1',
    stepIndex: 0,
    stepHash: stepHash(text),
    stepText: text,
    rating: 1,
    source: 'auto-completion',
  });
  const summaries = [
    { solutionId: 'a1', steps: 2, labelled: 1, negative: 0, probes: 4 },
    // Labelled in an earlier run whose store was deleted: must be reported.
    { solutionId: 'a2', steps: 3, labelled: 2, negative: 1, probes: 8 },
    // No step got a label (a solution without steps): nothing to miss.
    { solutionId: 'a3', steps: 0, labelled: 0, negative: 0, probes: 0 },
  ];
  assert.deepEqual(labelsMissingFromStore(summaries, (await store.read()).records), ['a2']);
  assert.deepEqual(labelsMissingFromStore(summaries.slice(0, 1), (await store.read()).records), []);
});
