/**
 * Hostile case, issue 16: a heading line followed by a few thousand spaces made `parse-proof` run
 * for over a minute (the heading pattern backtracked). The CLI runs in its own process, bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cli, scratch } from './hostileHelpers';

test('parse-proof reads a heading followed by thousands of spaces in a moment', async () => {
  const s = scratch();
  try {
    const output = s.file(
      'output.txt',
      `## Solution${' '.repeat(6000)}!\nLet n = 2k.\n\n## Self Evaluation\t${'\t'.repeat(6000)}:x\nHere is my evaluation of the solution: fine.\n`,
    );
    const r = await cli(['parse-proof', output, '--json'], { limitMs: 20_000 });
    assert.equal(r.killed, undefined, `parse-proof was still running after ${r.ms} ms`);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.ms < 10_000, `took ${r.ms} ms`);
    assert.equal(JSON.parse(r.stdout).formatReward, 0);
  } finally {
    s.cleanup();
  }
});
