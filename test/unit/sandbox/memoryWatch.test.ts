/**
 * The memory supervisor on real processes: it sees grandchildren, and it reports a tree whose
 * processes together go over the cap although each one alone stays under it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { processTree, watchTreeMemory } from '../../../src/core/sandbox/memoryWatch';
import { until } from './hostileHelpers';

const linux = process.platform === 'linux';
const MiB = 1024 * 1024;

/** A shell whose children each hold `mb` MiB (touched) for a while. */
function holders(count: number, mb: number) {
  const hold = `import time; b = b"x" * (${mb} * 1024 * 1024); print("held", flush=True); time.sleep(20)`;
  const script = Array.from({ length: count }, () => `python3 -c '${hold}' &`).join('\n');
  return spawn('/bin/sh', ['-c', `${script}\nwait`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
}

test('the supervisor sees every process of the tree, grandchildren included', { skip: !linux }, async () => {
  const sh = holders(2, 1);
  try {
    const tree = await until('two python children', () => {
      const pids = processTree(sh.pid as number);
      return pids.length >= 3 ? pids : undefined;
    });
    assert.ok(tree.includes(sh.pid as number));
  } finally {
    process.kill(-(sh.pid as number), 'SIGKILL');
  }
});

test(
  'the supervisor reports a tree over the cap, each of its processes under it',
  { skip: !linux },
  async () => {
    // Three processes of 60 MiB: each under a 100 MiB cap, together over it.
    const sh = holders(3, 60);
    let over: number[] | undefined;
    const stop = watchTreeMemory(sh.pid as number, 100 * MiB, (pids) => (over = pids));
    try {
      const pids = await until('the supervisor to report the tree', () => over);
      assert.ok(pids.length >= 3, `the tree it reported: ${pids.join(', ')}`);
    } finally {
      stop();
      process.kill(-(sh.pid as number), 'SIGKILL');
    }
  },
);

test('the supervisor stays quiet while the tree holds less than the cap', { skip: !linux }, async () => {
  const sh = holders(2, 20);
  let over: number[] | undefined;
  const stop = watchTreeMemory(sh.pid as number, 200 * MiB, (pids) => (over = pids));
  let held = 0;
  sh.stdout.on('data', (b: Buffer) => (held += b.toString().split('held').length - 1));
  try {
    await until('both children to hold their memory', () => (held >= 2 ? true : undefined));
    // A few more samples after both hold their memory.
    const samples = Date.now() + 300;
    await until('a few samples', () => (Date.now() > samples ? true : undefined));
    assert.equal(over, undefined);
  } finally {
    stop();
    process.kill(-(sh.pid as number), 'SIGKILL');
  }
});
