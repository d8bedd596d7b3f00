import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

test("no import in the core points from one feature's folder into another's past the floor (scripts/feature-arrows.mjs)", () => {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'feature-arrows.mjs')], {
    encoding: 'utf8',
  });
  const problems = run.stdout.split('\n').filter((l) => /^(arrow|stale|unplaced): /.test(l));
  assert.deepEqual(
    problems,
    [],
    'move the shared piece down to the floor, or (rarely) allow the arrow in the script with why',
  );
  assert.equal(run.status, 0, run.stderr);
});
