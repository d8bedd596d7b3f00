import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loopFolder } from '../../../src/core/loop/folders';
import { scratchDir } from '../scratchDir';

test('a stopped loop continues in its folder; after a finished one, a new loop starts beside it', () => {
  const workspace = scratchDir('stepwise-loops-');
  const base = path.join(workspace, '.stepwise', 'loop');
  const first = loopFolder(workspace, new Date('2026-11-24T10:00:00.000Z'));
  assert.equal(
    first,
    path.join(base, '2026-11-24T10-00-00-000Z'),
    'no loop yet: a new one, named by its start',
  );

  fs.mkdirSync(first, { recursive: true });
  fs.writeFileSync(path.join(first, 'loop.json'), '{"version":1}\n');
  // Folders that are not loops (a PRM run, labels) are not taken for one.
  fs.mkdirSync(path.join(base, 'prm-onnx'));
  assert.equal(loopFolder(workspace, new Date('2026-11-24T11:00:00.000Z')), first, 'stopped: continue it');

  fs.writeFileSync(path.join(first, 'loop-report.json'), '{}\n');
  assert.equal(
    loopFolder(workspace, new Date('2026-11-24T11:00:00.000Z')),
    path.join(base, '2026-11-24T11-00-00-000Z'),
    'finished: its PRM is kept and the next loop trains a new one',
  );
});
