import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setUpTrainerEnvironment } from '../../../src/core/trainer/setup';
import { TrainerSetupError } from '../../../src/core/trainer/python';
import { scratchDir } from '../scratchDir';

const tmp = () => scratchDir('stepwise-setup-');

test('a missing trainer package is a clear error before anything is created', async () => {
  const venvDir = path.join(tmp(), 'venv');
  await assert.rejects(
    setUpTrainerEnvironment({ basePython: 'python3', venvDir, trainerDir: tmp() }),
    (err: unknown) => err instanceof TrainerSetupError && /trainer package is missing/.test(err.message),
  );
  assert.ok(!fs.existsSync(venvDir));
});

test('creates the venv, streams pip lines, and installs a local package offline', async () => {
  const trainerDir = tmp();
  // Offline (--no-index), pip can only build this if the venv has setuptools; both outcomes are
  // checked below, so the test needs no network.
  fs.writeFileSync(
    path.join(trainerDir, 'pyproject.toml'),
    '[project]\nname = "fake-trainer"\nversion = "0.0.1"\n[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n',
  );
  const venvDir = path.join(tmp(), 'venv');
  const lines: string[] = [];
  const outcome = await setUpTrainerEnvironment({
    basePython: 'python3',
    venvDir,
    trainerDir,
    pipArgs: ['--no-index', '--no-build-isolation'],
    onLine: (l) => lines.push(l),
  }).then(
    (python) => ({ python }),
    (err: unknown) => ({ err }),
  );
  assert.ok(fs.existsSync(path.join(venvDir, 'bin', 'python')), 'the venv was created');
  assert.ok(lines.some((l) => l.startsWith('$ python3 -m venv')), 'the exact command is logged');
  assert.ok(lines.some((l) => / -m pip install /.test(l)));
  if ('err' in outcome) {
    // Offline without setuptools in the venv, pip fails: the error says so and what to do.
    assert.ok(outcome.err instanceof TrainerSetupError);
    assert.match(outcome.err.message, /pip failed \(exit code \d+\)/);
    assert.ok(lines.length > 2, 'pip output was streamed');
  } else {
    assert.equal(outcome.python, path.join(venvDir, 'bin', 'python'));
  }
});

test('cancelling stops setup with an AbortError', async () => {
  const trainerDir = tmp();
  fs.writeFileSync(path.join(trainerDir, 'pyproject.toml'), '[project]\nname = "x"\nversion = "0"\n');
  const abort = new AbortController();
  const run = setUpTrainerEnvironment({
    basePython: 'python3',
    venvDir: path.join(tmp(), 'venv'),
    trainerDir,
    signal: abort.signal,
    onLine: (l) => l.startsWith('$') && abort.abort(),
  });
  await assert.rejects(run, (err: unknown) => (err as Error).name === 'AbortError');
});
