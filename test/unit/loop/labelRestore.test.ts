import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MathProblem } from '../../../src/core/eval/datasets';
import { completionLabels, type StepSearch } from '../../../src/core/autoLabels/completion';
import { LabelStore } from '../../../src/core/labels/store';
import { labelsMissingFromStore } from '../../../src/core/loop/loop';
import {
  restoredLabels,
  type LabelledSolutionSummary,
  type LabellingSettings,
  type SampledSolution,
} from '../../../src/core/loop/solutions';
import { splitSteps } from '../../../src/core/steps/split';
import { scratchDir } from '../scratchDir';

const PROBLEM: MathProblem = { id: 'p1', problem: 'What is (2 + 2) * 3 - 1?', answer: '11' };
const TEXT = 'First, 2 + 2 = 4.\n\nThen 4 * 3 = 12.\n\nNext 12 - 2 = 10.\n\nSo the answer is \\boxed{10}.';
const settings = (search: StepSearch): LabellingSettings => ({
  samplesPerStep: 4,
  unsolved: 'skip',
  search,
  maxTokens: 64,
  temperature: 0.8,
  seed: 0,
});
const solution = (correct: boolean, text = TEXT): SampledSolution => ({
  solutionId: `auto-${correct}`,
  text,
  finalAnswer: correct ? '11' : '10',
  correct,
  finishReason: 'stop',
  selfScore: null,
});

/** What the labeller finds when continuations from step `firstError` on never reach the answer. */
async function labelled(s: SampledSolution, search: StepSearch, firstError: number) {
  const steps = splitSteps(s.text);
  const estimates = await completionLabels(
    { text: s.text, steps, finalAnswerCorrect: s.correct },
    async (prefix, n) => {
      const reached = steps.findIndex((st) => st.end === prefix.length);
      return Array.from({ length: n }, (_, i) => reached < firstError && i === 0);
    },
    { samplesPerStep: 4, search },
  );
  const summary: LabelledSolutionSummary = {
    solutionId: s.solutionId,
    steps: steps.length,
    labelled: estimates.length,
    negative: estimates.filter((e) => e.rating === -1).length,
    probes: estimates.filter((e) => e.evidence === 'sampled').length,
  };
  return { estimates, summary };
}

test('labels rebuilt from a journal that kept only the counts have the ratings the labeller found', async () => {
  for (const search of ['first-error', 'every-step'] as const)
    for (const [correct, firstError] of [
      [true, 9],
      [false, 0],
      [false, 1],
      [false, 2],
      [false, 3],
    ] as const) {
      const s = solution(correct);
      const { estimates, summary } = await labelled(s, search, firstError);
      const labels = restoredLabels(PROBLEM, s, summary, settings(search), 'Qwen');
      assert.ok(labels, `${search}, first error ${firstError}`);
      assert.deepEqual(
        labels.map((l) => l.rating),
        estimates.map((e) => e.rating),
        `${search}, first error ${firstError}`,
      );
      const steps = splitSteps(s.text);
      assert.deepEqual(
        labels.map((l) => [l.stepIndex, l.stepHash, l.stepText]),
        steps.slice(0, labels.length).map((st, i) => [i, st.hash, st.text]),
      );
      assert.equal(
        labels[0].problemText,
        PROBLEM.problem,
        'the first label carries the problem, as labelling does',
      );
      // The counts of continuations were never journaled: the labels say so instead of inventing them.
      for (const l of labels) {
        assert.equal(l.source, 'auto-completion');
        assert.equal(l.meta?.evidence, 'restored');
        assert.equal(l.meta?.samples, undefined);
      }
    }
});

test('labels rebuilt from a journal with the estimates keep their evidence', async () => {
  const s = solution(false);
  const { estimates, summary } = await labelled(s, 'first-error', 2);
  const recorded = estimates.map(({ rating, evidence, samples, successes }) => ({
    rating,
    evidence,
    samples,
    successes,
  }));
  const labels = restoredLabels(
    PROBLEM,
    s,
    { ...summary, estimates: recorded },
    settings('first-error'),
    'Qwen',
  );
  assert.deepEqual(
    labels?.map((l) => [l.rating, l.meta?.evidence, l.meta?.samples, l.meta?.successes]),
    recorded.map((e) => [e.rating, e.evidence, e.samples, e.successes]),
  );
  assert.ok(labels?.every((l) => l.meta?.restoredFrom === 'label journal'));
});

test('a solution that no longer splits into the counted steps is not restored', async () => {
  const s = solution(false);
  const { summary } = await labelled(s, 'first-error', 1);
  const merged = solution(false, TEXT.replace(/\n\n/g, ' '));
  assert.equal(restoredLabels(PROBLEM, merged, summary, settings('first-error'), 'Qwen'), null);
  assert.equal(
    restoredLabels(PROBLEM, s, { ...summary, labelled: 9 }, settings('first-error'), 'Qwen'),
    null,
  );
});

test('restored labels fill the store so that nothing is missing any more', async () => {
  const store = new LabelStore(scratchDir('stepwise-label-restore-'));
  const s = solution(false);
  const { summary } = await labelled(s, 'first-error', 2);
  assert.deepEqual(labelsMissingFromStore([summary], (await store.read()).records), [s.solutionId]);
  for (const label of restoredLabels(PROBLEM, s, summary, settings('first-error'), 'Qwen') ?? [])
    await store.append(label);
  const { records } = await store.read();
  assert.deepEqual(labelsMissingFromStore([summary], records), []);
  assert.deepEqual(
    records.map((r) => r.rating),
    [1, 1, -1],
  );
});
