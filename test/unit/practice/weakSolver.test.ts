import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withWeakSolver } from '../../../src/core/practice/weakSolver';
import { scriptedModel } from '../helpers/scriptedModel';

test('no weak model named: the work runs without one and nothing is opened', async () => {
  for (const dir of [undefined, '', '   ']) {
    const opened: string[] = [];
    const got = await withWeakSolver(
      dir,
      async (d) => {
        opened.push(d);
        return scriptedModel(() => '');
      },
      async (weak) => weak,
    );
    assert.equal(got, undefined);
    assert.deepEqual(opened, []);
  }
});

test('a missing weak model folder is an error that names it, before anything loads', async () => {
  let opened = false;
  await assert.rejects(
    withWeakSolver(
      path.join(os.tmpdir(), 'stepwise-no-such-weak-model'),
      async () => {
        opened = true;
        return scriptedModel(() => '');
      },
      async () => 'ran',
      'stepwise.practice.weakModelPath:',
    ),
    /stepwise\.practice\.weakModelPath: .*stepwise-no-such-weak-model does not exist/,
  );
  assert.equal(opened, false);
});

test('the weak model reaches the work and is disposed after it, also when the work fails', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-weak-'));
  try {
    for (const fails of [false, true]) {
      let disposed = 0;
      const weak = { ...scriptedModel(() => 'weak answer'), dispose: async () => void disposed++ };
      const run = withWeakSolver(
        ` ${dir} `,
        async (d) => {
          assert.equal(d, dir, 'the folder is trimmed');
          return weak;
        },
        async (got) => {
          assert.equal(got, weak);
          if (fails) throw new Error('the loop failed');
          return 'done';
        },
      );
      if (fails) await assert.rejects(run, /the loop failed/);
      else assert.equal(await run, 'done');
      assert.equal(disposed, 1);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
