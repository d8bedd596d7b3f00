import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findTrainerPython, missingModules, TrainerSetupError } from '../../../src/core/trainer/python';
import { scratchDir } from '../scratchDir';

/** A fake interpreter: a shell script that runs the system Python with extra modules on its path. */
function interpreterWith(modules: string[]): string {
  const dir = scratchDir('stepwise-python-');
  for (const m of modules) {
    fs.mkdirSync(path.join(dir, 'lib', m), { recursive: true });
    fs.writeFileSync(path.join(dir, 'lib', m, '__init__.py'), '');
  }
  const exe = path.join(dir, 'python');
  fs.writeFileSync(exe, `#!/bin/sh\nPYTHONPATH="${path.join(dir, 'lib')}" exec python3 "$@"\n`, { mode: 0o755 });
  return exe;
}

test('names every missing module, not only the first', async () => {
  const python = interpreterWith(['stepwise_trainer']);
  const missing = await missingModules(python);
  const names = missing.map((m) => m.split(' ')[0]);
  // torch and trl may be installed on this machine's system Python; stepwise_trainer is not missing.
  assert.ok(!names.includes('stepwise_trainer'));
  const system = (await missingModules('python3')).map((m) => m.split(' ')[0]);
  assert.ok(system.includes('stepwise_trainer'), 'the system Python has no trainer');
  assert.deepEqual(names, system.filter((n) => n !== 'stepwise_trainer'));
});

test('an interpreter that cannot run is reported, not thrown', async () => {
  const missing = await missingModules('/nonexistent/python');
  assert.equal(missing.length, 1);
  assert.match(missing[0]!, /cannot run it/);
});

test('the first candidate with all modules wins, in order', async () => {
  const full = interpreterWith(['stepwise_trainer', 'torch', 'trl']);
  const partial = interpreterWith(['stepwise_trainer']);
  assert.equal(await findTrainerPython({ setting: full, pythonExtension: partial }), full);
  assert.equal(await findTrainerPython({ setting: '/nope/python', pythonExtension: full }), full);
});

test('no usable interpreter gives an actionable error listing what each lacks', async () => {
  const partial = interpreterWith(['torch', 'trl']);
  await assert.rejects(
    findTrainerPython({ setting: partial, managedVenv: '/nonexistent/venv' }),
    (err: unknown) => {
      assert.ok(err instanceof TrainerSetupError);
      assert.match(err.message, /stepwise_trainer/);
      assert.match(err.message, /\/nonexistent\/venv\/bin\/python: not found/);
      assert.match(err.hint, /stepwise\.trainer\.pythonPath/);
      return true;
    },
  );
});
