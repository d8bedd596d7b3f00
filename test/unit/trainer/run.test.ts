import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTrainer } from '../../../src/core/trainer/run';
import { scratchDir } from '../scratchDir';

/** A real Python package named stepwise_trainer that behaves like the trainer in one way each. */
function fakeTrainerDir(body: string): string {
  const dir = scratchDir('stepwise-trainer-proto-');
  fs.mkdirSync(path.join(dir, 'stepwise_trainer'));
  fs.writeFileSync(path.join(dir, 'stepwise_trainer', '__init__.py'), '');
  fs.writeFileSync(path.join(dir, 'stepwise_trainer', '__main__.py'), `import json, sys, time, signal\ndef ev(**e):\n    print(json.dumps({"job": "prm", "time": time.time(), **e}), flush=True)\n${body}\n`);
  return dir;
}

const python = 'python3';

test('parses protocol events and reports a finished run', async () => {
  const dir = fakeTrainerDir('ev(type="progress", step=1, totalSteps=2)\nev(type="checkpoint", step=2, path="/x/checkpoint-2")\nev(type="done", output="/x/final", metrics={"after/auroc": 0.9})');
  const seen: string[] = [];
  const r = await runTrainer({ python, job: 'prm', args: [], cwd: dir, onEvent: (e) => seen.push(e.type) });
  assert.equal(r.outcome, 'done');
  assert.deepEqual(seen, ['progress', 'checkpoint', 'done']);
  assert.equal(r.lastCheckpoint, '/x/checkpoint-2');
});

test('a malformed line is a protocol error in the log, not a crash', async () => {
  const dir = fakeTrainerDir('print("hello from a library", flush=True)\nev(type="metric", step=1, data={"loss": "high"})\nev(type="done", output="/o", metrics={})');
  const logs: string[] = [];
  const r = await runTrainer({ python, job: 'prm', args: [], cwd: dir, onLog: (l) => logs.push(l) });
  assert.equal(r.outcome, 'done');
  assert.equal(logs.filter((l) => l.startsWith('protocol error')).length, 2);
});

test('a crash names the last checkpoint', async () => {
  const dir = fakeTrainerDir('ev(type="checkpoint", step=5, path="/x/checkpoint-5")\nimport os\nos._exit(3)');
  const r = await runTrainer({ python, job: 'prm', args: [], cwd: dir });
  assert.equal(r.outcome, 'crashed');
  assert.match(r.message, /exit code 3/);
  assert.match(r.message, /checkpoint-5/);
});

test('an error event becomes the message', async () => {
  const dir = fakeTrainerDir('ev(type="error", message="CUDA out of memory", hint="lower --batch-size")\nsys.exit(1)');
  const r = await runTrainer({ python, job: 'prm', args: [], cwd: dir });
  assert.equal(r.outcome, 'error');
  assert.match(r.message, /out of memory — lower --batch-size/);
});

test('cancelling interrupts the trainer (SIGINT first)', async () => {
  const dir = fakeTrainerDir('try:\n    ev(type="checkpoint", step=1, path="/x/c1")\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    ev(type="error", message="Training was interrupted.")\n    sys.exit(130)');
  const controller = new AbortController();
  const started = Date.now();
  const run = runTrainer({ python, job: 'prm', args: [], cwd: dir, signal: controller.signal, onEvent: (e) => e.type === 'checkpoint' && controller.abort() });
  const r = await run;
  assert.equal(r.outcome, 'cancelled');
  assert.ok(Date.now() - started < 10_000);
  assert.ok(r.events.some((e) => e.type === 'error' && /interrupted/.test(e.message)), 'the trainer saw SIGINT and said so');
});

test('a trainer that ignores SIGINT is killed after the grace period, naming its last checkpoint', async () => {
  const dir = fakeTrainerDir(
    'signal.signal(signal.SIGINT, signal.SIG_IGN)\nev(type="checkpoint", step=3, path="/x/checkpoint-3")\ntime.sleep(60)',
  );
  const controller = new AbortController();
  const started = Date.now();
  const r = await runTrainer({
    python,
    job: 'prm',
    args: [],
    cwd: dir,
    graceMs: 300,
    signal: controller.signal,
    onEvent: (e) => e.type === 'checkpoint' && controller.abort(),
  });
  assert.equal(r.outcome, 'cancelled');
  assert.ok(Date.now() - started < 10_000, 'killed long before its sleep ended');
  assert.match(r.message, /checkpoint-3/);
});

test('the exact command is logged first', async () => {
  const dir = fakeTrainerDir('ev(type="done", output="/o", metrics={})');
  const logs: string[] = [];
  await runTrainer({ python, job: 'prm', args: ['--data', 'a b.jsonl'], cwd: dir, onLog: (l) => logs.push(l) });
  assert.equal(logs[0], `$ ${python} -m stepwise_trainer prm --data a b.jsonl`);
});
