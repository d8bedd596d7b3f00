import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

test('no import loop among the sources (scripts/import-cycles.mjs)', () => {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'import-cycles.mjs')], {
    encoding: 'utf8',
  });
  const loops = run.stdout
    .split('\n')
    .filter((l) => l.startsWith('loop: '))
    .map((l) => l.slice('loop: '.length));
  assert.deepEqual(loops, [], 'an import loop: break it (move the shared part down a layer)');
  assert.equal(run.status, 0);
});
