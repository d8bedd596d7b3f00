import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { EvalJournal, EvalSettingsError } from '../../../src/core/eval/journal';
import { runItems } from '../../../src/core/eval/runner';
import { scratchDir } from '../scratchDir';

const journalFile = () => path.join(scratchDir('stepwise-journal-'), 'x.items.jsonl');

test('finished items survive a reopen; a failed item is retried; the latest line of an id wins', () => {
  const file = journalFile();
  const j = EvalJournal.open<{ v: number }>(file, 'prm', { model: 'm' });
  j.append({ index: 0, id: 'a', result: { v: 1 }, ms: 5 });
  j.append({ index: 1, id: 'b', error: { message: 'boom' }, ms: 1 });
  j.close();
  const again = EvalJournal.open<{ v: number }>(file, 'prm', { model: 'm' });
  assert.deepEqual([...again.finished.keys()], ['a']);
  assert.deepEqual([...again.failed.keys()], ['b']);
  again.append({ index: 1, id: 'b', result: { v: 2 }, ms: 1 });
  assert.deepEqual(
    again.entries().map((e) => e.result),
    [{ v: 1 }, { v: 2 }],
  );
  again.close();
});

test('a torn last line (a kill mid-write) is cut off and reported', () => {
  const file = journalFile();
  const j = EvalJournal.open(file, 'prm', {});
  j.append({ index: 0, id: 'a', result: 1, ms: 1 });
  j.close();
  fs.appendFileSync(file, '{"type":"item","index":1,"id":"b","res');
  const again = EvalJournal.open(file, 'prm', {});
  assert.equal(again.finished.size, 1);
  assert.match(again.repairs[0], /torn last line/);
  again.append({ index: 1, id: 'b', result: 2, ms: 1 });
  again.close();
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, 3, 'header and two whole items');
  for (const l of lines) JSON.parse(l);
});

test('resuming with other settings is refused with the difference named; --fresh starts over', () => {
  const file = journalFile();
  EvalJournal.open(file, 'prove', { model: 'a', candidates: 4 }).close();
  assert.throws(
    () => EvalJournal.open(file, 'prove', { model: 'b', candidates: 4 }),
    (e: unknown) =>
      e instanceof EvalSettingsError &&
      /model: "a" before, "b" now/.test(e.message) &&
      /--fresh/.test(e.hint),
  );
  const fresh = EvalJournal.open(file, 'prove', { model: 'b', candidates: 4 }, { fresh: true });
  assert.equal(fresh.finished.size, 0);
  fresh.close();
});

test('the same data file named relatively or absolutely resumes; another file is refused', () => {
  const file = journalFile();
  const data = path.relative(process.cwd(), path.join(os.tmpdir(), 'problems.jsonl'));
  EvalJournal.open(file, 'tests', { data, model: 'm' }).close();
  EvalJournal.open(file, 'tests', { data: path.resolve(data), model: 'm' }).close();
  assert.throws(
    () => EvalJournal.open(file, 'tests', { data: path.join(os.tmpdir(), 'other.jsonl'), model: 'm' }),
    (e: unknown) => e instanceof EvalSettingsError && /data: /.test(e.message),
  );
});

test('a journal has one writer: a live process holding the lock is named; a dead one is taken over', () => {
  const file = journalFile();
  const held = EvalJournal.open(file, 'prm', {});
  // The lock names this (live) process; a second writer in another process must be refused.
  fs.writeFileSync(`${file}.lock`, String(process.ppid));
  assert.throws(() => EvalJournal.open(file, 'prm', {}), /Another evaluation \(process \d+\)/);
  held.close();
  const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  fs.writeFileSync(`${file}.lock`, dead.stdout.trim());
  EvalJournal.open(file, 'prm', {}).close();
});

test('runItems skips finished items, reports an ETA, and stops after repeated failures', async () => {
  const file = journalFile();
  const journal = EvalJournal.open<number>(file, 'prm', {});
  journal.append({ index: 0, id: 'i0', result: 0, ms: 1 });
  const items = Array.from({ length: 5 }, (_, i) => ({ index: i, id: `i${i}`, input: i }));
  const seen: number[] = [];
  const progress: { done: number; etaMs: number | null }[] = [];
  const outcome = await runItems({
    items,
    journal,
    concurrency: 2,
    evaluate: async (item) => {
      seen.push(item.input);
      return item.input * 10;
    },
    describe: (r) => String(r),
    onProgress: (p) => progress.push({ done: p.done, etaMs: p.etaMs }),
  });
  assert.deepEqual(seen.sort(), [1, 2, 3, 4], 'the finished item is not run again');
  assert.equal(outcome.ranThisTime, 4);
  assert.equal(progress[progress.length - 1].done, 5);
  assert.equal(progress[progress.length - 1].etaMs, 0);
  journal.close();

  const failing = EvalJournal.open<number>(journalFile(), 'prm', {});
  const stopped = await runItems({
    items,
    journal: failing,
    concurrency: 1,
    evaluate: async () => {
      throw Object.assign(new Error('endpoint unreachable'), { hint: 'start the server' });
    },
    describe: String,
  });
  assert.deepEqual(stopped.stoppedBy, { message: 'endpoint unreachable', hint: 'start the server' });
  assert.equal(stopped.ranThisTime, 3, 'three failures in a row stop the run');
  failing.close();
});
