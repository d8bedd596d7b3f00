/**
 * Hostile cases, issue 40 class 6: a label store folder that came from somewhere else (a cloned
 * repository) with a FIFO or a symbolic link where the store's files go. The real CLI runs in its
 * own process, bounded in time, against a real store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cli, scratch } from '../sandbox/hostileHelpers';

const linux = process.platform === 'linux';
const ADD = ['--problem', 'p1', '--step-text', 'Let n = 2k.', '--rating', '1', '--solution-id', 's9'];

function record(step: number): string {
  return JSON.stringify({
    schemaVersion: 1,
    id: `id-${step}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    problemId: 'p1',
    problemText: 'Show that 1 + 1 = 2.',
    solutionId: 's1',
    stepIndex: step,
    stepHash: '0123456789abcdef',
    stepText: `step ${step}`,
    rating: 1,
    source: 'cli',
  });
}

test(
  'label store: a FIFO where the lock goes ends labels add with a clear error, not a hang',
  { skip: !linux },
  async () => {
    const s = scratch();
    try {
      const lock = path.join(s.dir, 'labels.jsonl.lock');
      assert.equal(spawnSync('mkfifo', [lock]).status, 0);
      // Killed past 10 s: a run that blocks on the FIFO fails here.
      const r = await cli(['labels', 'add', '--store', s.dir, ...ADD], { limitMs: 10_000 });
      assert.equal(r.killed, undefined, 'labels add blocked on the FIFO');
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /labels\.jsonl\.lock is a FIFO \(named pipe\), not a regular file/);
      assert.equal(fs.existsSync(path.join(s.dir, 'labels.jsonl')), false, 'nothing was written');
      assert.ok(fs.lstatSync(lock).isFIFO(), 'the FIFO is left where it was');
    } finally {
      s.cleanup();
    }
  },
);

for (const command of ['check', 'add'] as const) {
  test(`label store: labels ${command} refuses a labels.jsonl linked out of the store and leaves the target untouched`, async () => {
    const s = scratch();
    try {
      const store = path.join(s.dir, 'store');
      fs.mkdirSync(store);
      // A file outside the store whose last line lacks its newline: a repair would cut it.
      const outside = path.join(s.dir, 'precious.txt');
      const content = `${record(0)}\nnot a label, and no line end`;
      fs.writeFileSync(outside, content);
      fs.symlinkSync(outside, path.join(store, 'labels.jsonl'));
      const args =
        command === 'check'
          ? ['labels', 'check', '--store', store]
          : ['labels', 'add', '--store', store, ...ADD];
      const r = await cli(args, { limitMs: 25_000 });
      assert.equal(r.code, 1, `${r.stdout}${r.stderr}`);
      assert.match(
        r.stderr,
        /labels\.jsonl is a symbolic link pointing to .*precious\.txt, not a regular file/,
      );
      assert.equal(fs.readFileSync(outside, 'utf8'), content, 'the target was changed');
      assert.equal(fs.existsSync(path.join(store, 'labels.jsonl.quarantine')), false);
    } finally {
      s.cleanup();
    }
  });
}

test('label store: a quarantine file linked out of the store is refused, the target untouched', async () => {
  const s = scratch();
  try {
    const store = path.join(s.dir, 'store');
    fs.mkdirSync(store);
    fs.writeFileSync(path.join(store, 'labels.jsonl'), `${record(0)}\n${record(1).slice(0, 40)}`);
    const outside = path.join(s.dir, 'precious.txt');
    fs.writeFileSync(outside, 'keep me');
    fs.symlinkSync(outside, path.join(store, 'labels.jsonl.quarantine'));
    const r = await cli(['labels', 'check', '--store', store], { limitMs: 25_000 });
    assert.equal(r.code, 1, `${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /labels\.jsonl\.quarantine is a symbolic link/);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'keep me');
  } finally {
    s.cleanup();
  }
});
