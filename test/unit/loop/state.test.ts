import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readLoopState, type LoopState } from '../../../src/core/loop/loop';
import { scratchDir } from '../scratchDir';

test('a loop folder carried to another machine without its models trains and exports again', () => {
  const dir = scratchDir('stepwise-loop-state-');
  const file = path.join(dir, 'loop.json');
  const finalDir = path.join(dir, 'prm', 'final');
  const onnxDir = path.join(dir, 'prm-onnx');
  const full: LoopState = {
    version: 1,
    train: { runDir: path.join(dir, 'prm'), finalDir, examples: 40, metrics: {} },
    export: { onnxDir },
    evaluate: { bestOfN: {} },
  };
  fs.writeFileSync(file, JSON.stringify(full));
  // Neither model is here: everything from training on is to do again.
  assert.deepEqual(readLoopState(file), { version: 1 });
  // The trained model is here, its export is not: export and evaluate again.
  fs.mkdirSync(finalDir, { recursive: true });
  assert.deepEqual(readLoopState(file), { version: 1, train: full.train });
  // The exported model is here: nothing to redo, even without the training folder.
  fs.rmSync(finalDir, { recursive: true });
  fs.mkdirSync(onnxDir, { recursive: true });
  assert.deepEqual(readLoopState(file), full);
});

test('an unreadable loop.json is refused with a way out, not started over silently', () => {
  const dir = scratchDir('stepwise-loop-state-');
  const file = path.join(dir, 'loop.json');
  fs.writeFileSync(file, '{"version": 1, "train":');
  assert.throws(() => readLoopState(file), /cannot be read.*/);
  assert.equal(fs.readFileSync(file, 'utf8'), '{"version": 1, "train":', 'the file is left as it was');
});
