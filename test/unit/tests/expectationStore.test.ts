import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  TestJudgementStore,
  judgementTrainingRows,
  type NewJudgement,
} from '../../../src/core/tests/expectationStore';
import { scratchDir } from '../scratchDir';

const judgement = (j: 'accept' | 'reject', source: string): NewJudgement => ({
  judgement: j,
  function: {
    name: 'merge_intervals',
    language: 'python',
    signature: 'def merge_intervals(intervals):',
    docstring: 'Merge overlapping intervals.',
  },
  file: 'intervals.py',
  test: { name: 's1_1', source, stage: 1 },
  onUser: 'failed',
  confidence: 0.4,
  evidence: '1 of 3 generated implementations pass it',
});

test('judgements are appended as whole lines and read back; the latest judgement of a test wins in the export', async () => {
  const dir = scratchDir('stepwise-judgements-');
  const store = new TestJudgementStore(path.join(dir, '.stepwise'));
  await store.append(judgement('accept', 'assert merge_intervals([(1, 3), (4, 5)]) == [(1, 5)]'));
  await store.append(judgement('reject', 'assert merge_intervals([(1, 3), (4, 5)]) == [(1, 5)]'));
  await store.append(judgement('accept', 'assert merge_intervals([]) == []'));
  const { records, corrupt } = await store.read();
  assert.equal(corrupt, 0);
  assert.deepEqual(
    records.map((r) => r.judgement),
    ['accept', 'reject', 'accept'],
  );
  assert.equal(fs.readFileSync(store.file, 'utf8').split('\n').filter(Boolean).length, 3);
  const rows = judgementTrainingRows(records);
  assert.deepEqual(
    rows.map((r) => [r.completion, r.label]),
    [
      ['assert merge_intervals([(1, 3), (4, 5)]) == [(1, 5)]', false],
      ['assert merge_intervals([]) == []', true],
    ],
  );
  assert.match(
    String(rows[0].prompt),
    /Specification:\ndef merge_intervals\(intervals\):\nDocumentation: Merge overlapping intervals\./,
  );
});

test('a line cut short by a crash is counted, never thrown on, and the next judgement starts on its own line', async () => {
  const dir = scratchDir('stepwise-judgements-');
  const store = new TestJudgementStore(dir);
  await store.append(judgement('accept', 'assert merge_intervals([]) == []'));
  fs.appendFileSync(store.file, '{"schemaVersion":1,"id":"x","judg');
  await store.append(judgement('reject', 'assert merge_intervals([[1, 2]]) == [[1, 3]]'));
  const { records, corrupt } = await store.read();
  assert.equal(corrupt, 1);
  assert.deepEqual(
    records.map((r) => r.judgement),
    ['accept', 'reject'],
  );
});

test('a judgements file linked out of the store is refused, and the file it points to is left as it was', async () => {
  const dir = scratchDir('stepwise-judgements-');
  const outside = path.join(dir, 'outside.txt');
  fs.writeFileSync(outside, 'not yours\n');
  const store = new TestJudgementStore(path.join(dir, '.stepwise'));
  fs.mkdirSync(store.dir);
  fs.symlinkSync(outside, store.file);
  await assert.rejects(store.append(judgement('reject', 'assert f(1) == 2')), /link|regular/i);
  await assert.rejects(store.read(), /link|regular/i);
  assert.equal(fs.readFileSync(outside, 'utf8'), 'not yours\n');
});
