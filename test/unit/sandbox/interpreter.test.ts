/**
 * The interpreter that runs tests is the binary, not a launcher script in front of it: a pyenv
 * or asdf shim needs the user's home and tools, which the sandbox does not mount, and every test
 * would then "not collect" on a correct function.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { resolvePython, runSuite } from '../../../src/core/sandbox/index';

/** A launcher like pyenv's: a script that finds the real interpreter through the user's environment. */
function writeShim(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-shim-'));
  const shim = path.join(dir, 'python3');
  fs.writeFileSync(
    shim,
    '#!/bin/sh\n[ -n "$STEPWISE_TEST_SHIM_TARGET" ] || exit 127\nexec "$STEPWISE_TEST_SHIM_TARGET" "$@"\n',
  );
  fs.chmodSync(shim, 0o755);
  return shim;
}

test('a Python behind a launcher script runs the tests as the binary itself would', async () => {
  const binary = resolvePython();
  const shim = writeShim();
  process.env.STEPWISE_TEST_SHIM_TARGET = binary;
  try {
    const resolved = resolvePython(shim);
    assert.notEqual(resolved, shim, 'the launcher is looked through');
    const printed = spawnSync(resolved, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
    assert.equal(printed.stdout.trim(), resolved);
    const r = await runSuite({
      language: 'python',
      code: 'def add(a, b):\n    return a + b\n',
      tests: [{ name: 'test_add', source: 'def test_add():\n    assert add(1, 2) == 3\n' }],
      pythonPath: shim,
    });
    assert.equal(r.verdicts[0].status, 'passed', r.verdicts[0].output);
  } finally {
    delete process.env.STEPWISE_TEST_SHIM_TARGET;
    fs.rmSync(path.dirname(shim), { recursive: true, force: true });
  }
});

test('a command that cannot say where its binary is stays as given', () => {
  assert.equal(resolvePython('/nonexistent/python3'), '/nonexistent/python3');
});
