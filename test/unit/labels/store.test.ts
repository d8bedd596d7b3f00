import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LabelStore, currentLabels, fromPrm800k, labelStates, labelledSolutions, toPrm800k, toTrlStepwise } from '../../../src/core/labels/index';
import { stepHash } from '../../../src/core/steps/split';
import { parseProofDocument } from '../../../src/core/steps/document';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-labels-'));
const label = (stepIndex: number, text: string, rating: -1 | 0 | 1 | null, solutionId = 'doc:a.md') => ({
  problemId: 'p1',
  problemText: 'Show that 2 + 2 = 4.',
  solutionId,
  stepIndex,
  stepHash: stepHash(text),
  stepText: text,
  rating,
  source: 'cli' as const,
});

test('appended labels read back valid, with schema version and ids', async () => {
  const store = new LabelStore(tmp());
  const saved = await store.append(label(0, '2 + 2 = 4', 1));
  assert.equal(saved.schemaVersion, 1);
  const { records, corrupt } = await store.read();
  assert.deepEqual(corrupt, []);
  assert.deepEqual(records, [saved]);
});

test('invalid labels are refused before anything is written', async () => {
  const store = new LabelStore(tmp());
  await assert.rejects(store.append({ ...label(0, 'x', 1), rating: 2 as never }));
  await assert.rejects(store.append({ ...label(0, 'x', 1), stepHash: 'nothex' }));
  assert.equal(fs.existsSync(store.file), false);
});

test('a corrupt line is reported and skipped, never removed', async () => {
  const dir = tmp();
  const store = new LabelStore(dir);
  await store.append(label(0, 'a', 1));
  fs.appendFileSync(store.file, '{"not": "a label"}\nthis is not json\n{"half": ');
  await store.append(label(1, 'b', -1));
  const before = fs.readFileSync(store.file, 'utf8');
  const { records, corrupt } = await store.read();
  assert.equal(records.length, 2);
  assert.deepEqual(
    corrupt.map((c) => c.line),
    [2, 3, 4],
  );
  assert.ok(before.includes('this is not json'), 'the corrupt line is still in the file');
  assert.ok(before.includes('{"half": \n'), 'an unfinished line is closed, not overwritten');
});

test('changing and retracting a label appends; the last record per step is in force', async () => {
  const store = new LabelStore(tmp());
  const first = await store.append(label(0, 'a', 1));
  await store.append({ ...label(0, 'a', -1), supersedes: first.id });
  await store.append(label(1, 'b', 0));
  await store.append(label(1, 'b', null));
  const current = currentLabels((await store.read()).records);
  assert.equal(current.get('doc:a.md#0')?.rating, -1);
  assert.equal(current.has('doc:a.md#1'), false);
  assert.equal((await store.read()).records.length, 4);
});

test('a label whose step text changed is stale, never reassigned to the step that now holds its text', () => {
  const doc1 = parseProofDocument('## Problem\nP\n\n## Solution\nLet x = 1.\nThen x + 1 = 2.\n');
  const labels = [label(0, 'Let x = 1.', 1), label(1, 'Then x + 1 = 2.', 1)].map((l, i) => ({ ...l, schemaVersion: 1 as const, id: String(i), createdAt: new Date().toISOString() }));
  assert.deepEqual(
    labelStates(labels, doc1.steps).map((s) => s.state),
    ['current', 'current'],
  );
  const edited = parseProofDocument('## Problem\nP\n\n## Solution\nWe take x = 1.\nLet x = 1.\nThen x + 1 = 3.\n');
  const states = labelStates(labels, edited.steps);
  assert.deepEqual(
    states.map((s) => [s.state, s.movedTo]),
    [
      ['stale', 1],
      ['stale', undefined],
    ],
  );
});

test('TRL export: steps in order, neutral as positive by default, nothing after the first error', async () => {
  const store = new LabelStore(tmp());
  await store.appendMany([label(0, 'a', 1), label(1, 'b', 0), label(2, 'c', -1), label(3, 'd', 1)]);
  const rows = toTrlStepwise(labelledSolutions((await store.read()).records));
  assert.deepEqual(rows, [{ prompt: 'Show that 2 + 2 = 4.', completions: ['a', 'b', 'c'], labels: [true, true, false] }]);
  assert.deepEqual(toTrlStepwise(labelledSolutions((await store.read()).records), 'drop')[0].completions, ['a', 'c']);
  assert.deepEqual(toTrlStepwise(labelledSolutions((await store.read()).records), 'negative')[0].labels, [true, false, false]);
});

test('PRM800K round trip keeps problem, step texts and ratings', async () => {
  const store = new LabelStore(tmp());
  await store.appendMany([label(0, 'a', 1), label(1, 'b', 0), label(2, 'c', -1)]);
  const exported = toPrm800k(labelledSolutions((await store.read()).records));
  assert.equal(exported[0].label.finish_reason, 'found_error');
  const imported = fromPrm800k(exported.map((l) => JSON.stringify(l)));
  assert.deepEqual(imported.problems, []);
  assert.deepEqual(
    imported.labels.map((l) => [l.stepIndex, l.stepText, l.rating]),
    [
      [0, 'a', 1],
      [1, 'b', 0],
      [2, 'c', -1],
    ],
  );
  assert.equal(imported.labels[0].problemText, 'Show that 2 + 2 = 4.');
});

test('PRM800K import takes the chosen completion, stops at an unrated step and reports bad lines', () => {
  const line = {
    labeler: 'L1',
    question: { problem: 'Compute 1+1.', ground_truth_answer: '2' },
    label: {
      steps: [
        { completions: [{ text: 'wrong path', rating: -1, flagged: false }, { text: '1+1 = 2', rating: 1, flagged: false }], human_completion: null, chosen_completion: 1 },
        { completions: [{ text: 'So the answer is 2.', rating: null, flagged: null }], human_completion: null, chosen_completion: null },
      ],
      total_time: 1000,
      finish_reason: 'give_up',
    },
  };
  const { labels, problems } = fromPrm800k([JSON.stringify(line), 'garbage', JSON.stringify({ question: {} })]);
  assert.deepEqual(
    labels.map((l) => [l.stepText, l.rating, l.labeller]),
    [['1+1 = 2', 1, 'L1']],
  );
  assert.deepEqual(
    problems.map((p) => p.line),
    [2, 3],
  );
});
