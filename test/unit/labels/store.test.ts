import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  LabelStore,
  currentLabels,
  fromPrm800k,
  labelStates,
  labelledSolutions,
  placeLabels,
  toPrm800k,
  toTrlStepwise,
} from '../../../src/core/labels/index';
import { stepHash } from '../../../src/core/steps/split';
import { parseProofDocument } from '../../../src/core/steps/document';
import { scratchDir } from '../scratchDir';

const tmp = () => scratchDir('stepwise-labels-');
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

test('a corrupt line is reported and skipped, never removed; a cut-short last line is quarantined', async () => {
  const dir = tmp();
  const store = new LabelStore(dir);
  await store.append(label(0, 'a', 1));
  fs.appendFileSync(store.file, '{"not": "a label"}\nthis is not json\n{"half": ');
  await store.append(label(1, 'b', -1));
  assert.match(
    store.lastRepairs[0],
    /cut short.*moved to labels\.jsonl\.quarantine.*every label before it is intact/,
  );
  const before = fs.readFileSync(store.file, 'utf8');
  const { records, corrupt } = await store.read();
  assert.equal(records.length, 2);
  assert.deepEqual(
    corrupt.map((c) => c.line),
    [2, 3],
  );
  assert.ok(before.includes('this is not json'), 'the corrupt line is still in the file');
  assert.ok(!before.includes('{"half": '), 'the unfinished line left the store');
  assert.match(fs.readFileSync(store.quarantineFile, 'utf8'), /\{\\"half\\": /);
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
  const labels = [label(0, 'Let x = 1.', 1), label(1, 'Then x + 1 = 2.', 1)].map((l, i) => ({
    ...l,
    schemaVersion: 1 as const,
    id: String(i),
    createdAt: new Date().toISOString(),
  }));
  assert.deepEqual(
    labelStates(labels, doc1.steps).map((s) => s.state),
    ['current', 'current'],
  );
  const edited = parseProofDocument(
    '## Problem\nP\n\n## Solution\nWe take x = 1.\nLet x = 1.\nThen x + 1 = 3.\n',
  );
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
  assert.deepEqual(rows, [
    { prompt: 'Show that 2 + 2 = 4.', completions: ['a', 'b', 'c'], labels: [true, true, false] },
  ]);
  assert.deepEqual(toTrlStepwise(labelledSolutions((await store.read()).records), 'drop')[0].completions, [
    'a',
    'c',
  ]);
  assert.deepEqual(toTrlStepwise(labelledSolutions((await store.read()).records), 'negative')[0].labels, [
    true,
    false,
    false,
  ]);
  // keep: the three classes the trainer's `prm --label-classes 3` reads.
  assert.deepEqual(
    toTrlStepwise(labelledSolutions((await store.read()).records), 'keep')[0].labels,
    [1, 0, -1],
  );
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
        {
          completions: [
            { text: 'wrong path', rating: -1, flagged: false },
            { text: '1+1 = 2', rating: 1, flagged: false },
          ],
          human_completion: null,
          chosen_completion: 1,
        },
        {
          completions: [{ text: 'So the answer is 2.', rating: null, flagged: null }],
          human_completion: null,
          chosen_completion: null,
        },
      ],
      total_time: 1000,
      finish_reason: 'give_up',
    },
  };
  const { labels, problems } = fromPrm800k([
    JSON.stringify(line),
    'garbage',
    JSON.stringify({ question: {} }),
  ]);
  assert.deepEqual(
    labels.map((l) => [l.stepText, l.rating, l.labeller]),
    [['1+1 = 2', 1, 'L1']],
  );
  assert.deepEqual(
    problems.map((p) => p.line),
    [2, 3],
  );
});

test('placing labels: a label follows its text only to the one step with exactly that hash', () => {
  const records = [label(0, 'Let x = 1.', 1), label(1, 'Then x + 1 = 2.', 0), label(2, 'Done.', -1)].map(
    (l, i) => ({ ...l, schemaVersion: 1 as const, id: String(i), createdAt: new Date().toISOString() }),
  );
  // A line inserted at the top moves every step down; the edited step cannot be placed.
  const edited = parseProofDocument(
    '## Problem\nP\n\n## Solution\nWe start.\nLet x = 1.\nThen x + 1 = 2!\nDone.\n',
  );
  const { byStep, stale } = placeLabels(records, edited.steps);
  assert.deepEqual([...byStep.entries()].map(([index, p]) => [index, p.label.id, p.moved]).sort(), [
    [1, '0', true],
    [3, '2', true],
  ]);
  assert.deepEqual(
    stale.map((l) => l.id),
    ['1'],
  );
  // The same text twice is ambiguous: the label is not guessed onto either copy.
  const twice = parseProofDocument('## Problem\nP\n\n## Solution\nIntro.\nDone.\nDone.\n');
  assert.deepEqual(
    placeLabels([{ ...records[2], stepIndex: 0 }], twice.steps).stale.map((l) => l.id),
    ['2'],
  );
});

test('PRM800K import of the README example shape: chosen null ends at the found error, human steps count as +1', () => {
  const line = {
    labeler: '340d89bc',
    timestamp: '2023-01-22T04:34:27.052924',
    generation: 9,
    is_quality_control_question: false,
    is_initial_screening_question: false,
    question: {
      problem: 'What is the gcd of 20! and 200000?',
      ground_truth_answer: '40,\\!000',
      pre_generated_steps: ['a', 'b'],
    },
    label: {
      steps: [
        {
          completions: [{ text: 'I want the largest common divisor.', rating: 0, flagged: null }],
          human_completion: null,
          chosen_completion: 0,
        },
        {
          completions: [{ text: 'Bad step.', rating: -1, flagged: null }],
          human_completion: { text: 'Factor both numbers.', rating: null },
          chosen_completion: null,
        },
        {
          completions: [
            { text: '200000 = 2^9 * 5^4.', rating: 0, flagged: null },
            { text: '200000 = 2^5 * 10^4 = 2^9 * 5^4.', rating: -1, flagged: false },
          ],
          human_completion: null,
          chosen_completion: null,
        },
      ],
      total_time: 278270,
      finish_reason: 'found_error',
    },
  };
  const { labels, problems } = fromPrm800k([JSON.stringify(line)]);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    labels.map((l) => [l.stepText, l.rating]),
    [
      ['I want the largest common divisor.', 0],
      ['Factor both numbers.', 1],
      ['200000 = 2^5 * 10^4 = 2^9 * 5^4.', -1],
    ],
  );
  assert.equal(labels[0].meta?.groundTruthAnswer, '40,\\!000');
});

test('PRM800K export of imported labels keeps labeller, timestamp, generation, ground truth and finish reason', async () => {
  const line = {
    labeler: 'L2',
    timestamp: '2023-02-01T00:00:00',
    generation: 3,
    question: { problem: 'Compute 2+3.', ground_truth_answer: '5' },
    label: {
      steps: [
        {
          completions: [{ text: '2+3 = 5', rating: 1, flagged: false }],
          human_completion: null,
          chosen_completion: 0,
        },
      ],
      total_time: 10,
      finish_reason: 'give_up',
    },
  };
  const store = new LabelStore(tmp());
  await store.appendMany(fromPrm800k([JSON.stringify(line)]).labels);
  const [out] = toPrm800k(labelledSolutions((await store.read()).records));
  assert.equal(out.labeler, 'L2');
  assert.equal(out.timestamp, '2023-02-01T00:00:00');
  assert.equal(out.generation, 3);
  assert.equal(out.question.ground_truth_answer, '5');
  assert.equal(out.label.finish_reason, 'give_up');
  assert.deepEqual(out.label.steps[0].completions, [{ text: '2+3 = 5', rating: 1, flagged: false }]);
});

test('a relabelled first step keeps the problem text in exports', async () => {
  const store = new LabelStore(tmp());
  const first = await store.append(label(0, 'a', -1));
  await store.append({ ...label(0, 'a', 1), problemText: undefined, supersedes: first.id });
  const [row] = toTrlStepwise(labelledSolutions((await store.read()).records));
  assert.deepEqual(row, { prompt: 'Show that 2 + 2 = 4.', completions: ['a'], labels: [true] });
});
