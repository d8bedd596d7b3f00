import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { loadRuns, problemSlug, saveRun } from '../../../src/core/prove/runStore';
import { runsDir } from '../../../src/core/runs/folder';
import { proveRunJsonSchema } from '../../../src/core/prove/runSchema';
import { openModelFolder } from '../../../src/core/model/onnx/modelFolder';
import { generatorOutput, ScriptedBackend } from './scriptedBackend';
import { scratchDir } from '../scratchDir';

test('slugs are short, lower-case and file-name safe', () => {
  assert.equal(problemSlug('Prove that $\\sqrt{2}$ is irrational!'), 'prove-that-2-is-irrational');
  assert.equal(problemSlug('∀ε>0 ∃δ'), '0');
  assert.match(problemSlug('Démontrer que ' + 'x'.repeat(100)), /^demontrer-que-x+$/);
  assert.ok(problemSlug('a'.repeat(100)).length <= 40);
  assert.equal(problemSlug('???'), 'problem');
});

test('a run is saved under .stepwise/runs/<timestamp>-<slug>.json and read back valid', async () => {
  const workspace = scratchDir('stepwise-runs-');
  const backend = new ScriptedBackend(() => [generatorOutput('Trivial.', '1')]);
  const run = await proveAndVerify(
    { problem: 'Prove that 1 = 1.', options: { stepScores: false } },
    { generator: backend },
  );
  const file = await saveRun(run, runsDir(workspace));
  assert.match(
    path.relative(workspace, file),
    /^\.stepwise[/\\]runs[/\\]\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-prove-that-1-1\.json$/,
  );
  assert.deepEqual(
    fs.readdirSync(path.dirname(file)),
    [path.basename(file)],
    'no temporary file is left behind',
  );
  fs.writeFileSync(path.join(runsDir(workspace), 'zz-broken.json'), '{ not json');
  fs.writeFileSync(
    path.join(runsDir(workspace), 'zz-other.json'),
    JSON.stringify({ schema: 'stepwise.code-run' }),
  );
  fs.writeFileSync(
    path.join(runsDir(workspace), 'zz-bad.json'),
    JSON.stringify({ schema: 'stepwise.prove-run', version: 1 }),
  );
  const loaded = await loadRuns(runsDir(workspace));
  assert.equal(loaded.runs.length, 1);
  assert.deepEqual(loaded.runs[0].run, JSON.parse(JSON.stringify(run)));
  assert.deepEqual(
    loaded.skipped.map((s) => path.basename(s.file)),
    ['zz-bad.json', 'zz-broken.json'],
  );
});

test('a run that failed on a missing model keeps the error kind, so the editor can offer Select Model', async () => {
  const workspace = scratchDir('stepwise-runs-');
  const missing = path.join(workspace, 'no-model-here');
  const backend = new ScriptedBackend(() => {
    openModelFolder(missing, 'fp32');
    return [];
  });
  const run = await proveAndVerify(
    { problem: 'Prove that 1 = 1.', options: { stepScores: false } },
    { generator: backend },
  );
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'model-folder');
  assert.match(run.error?.hint ?? '', /Select Model/);
  const loaded = await loadRuns(runsDir(workspace));
  assert.equal(loaded.runs.length, 0);
  await saveRun(run, runsDir(workspace));
  const [saved] = (await loadRuns(runsDir(workspace))).runs;
  assert.equal(saved.run.error?.code, 'model-folder', 'the kind survives saving and reloading');
});

test('a missing runs folder has no runs', async () => {
  assert.deepEqual(await loadRuns(path.join(os.tmpdir(), 'no-such-stepwise-dir-' + process.pid)), {
    runs: [],
    skipped: [],
  });
});

test('the run schema exports as JSON Schema listing the fields the trainer reads', () => {
  const schema = proveRunJsonSchema() as { properties: Record<string, unknown>; required: string[] };
  for (const field of ['problem', 'options', 'models', 'iterations', 'final'])
    assert.ok(field in schema.properties, field);
  assert.ok(schema.required.includes('iterations'));
});
