import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { writeLabels } from './labelsFixture';
import { tinyPrmDir } from '../model/tinyModel';
import { defaultModelDir } from '../../../src/core/model/defaults';
import { scratchDir } from '../scratchDir';

const MAIN = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const SOLUTIONS = 600;

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  events: Record<string, unknown>[];
}

/** Runs `stepwise eval prm` in a child process; `killWhen` may SIGKILL it on a progress event. */
function runEval(args: string[], killWhen?: (done: number) => boolean): Promise<Child> {
  const script = `require(${JSON.stringify(MAIN)}).main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`;
  const child = spawn(process.execPath, ['-e', script, 'eval', 'prm', ...args, '--progress', 'json'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  let buffer = '';
  child.stderr.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        const e = JSON.parse(line) as Record<string, unknown>;
        events.push(e);
        if (e.type === 'progress' && killWhen?.(e.done as number)) child.kill('SIGKILL');
      } catch {
        events.push({ type: 'text', line });
      }
    }
  });
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, events })));
}

const itemLines = (journal: string) =>
  fs
    .readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"item"'));

test(
  'an evaluation killed midway and run again ends with the same totals as an uninterrupted run',
  { timeout: 300_000 },
  async () => {
    const dir = scratchDir('stepwise-eval-resume-');
    const labels = path.join(dir, 'labels.jsonl');
    writeLabels(labels, SOLUTIONS);
    const common = ['--labels', labels, '--prm-dir', tinyPrmDir()];
    const killed = path.join(dir, 'killed', 'prm.json');
    const whole = path.join(dir, 'whole', 'prm.json');

    const first = await runEval([...common, '--out', killed], (done) => done >= 50);
    assert.equal(first.signal, 'SIGKILL', 'the child was killed, not finished');
    const journal = killed.replace(/\.json$/, '.items.jsonl');
    const before = itemLines(journal).length;
    assert.ok(before >= 50 && before < SOLUTIONS, `killed midway: ${before} of ${SOLUTIONS} items on disk`);
    assert.ok(!fs.existsSync(killed), 'no results document yet: the run never finished');

    const second = await runEval([...common, '--out', killed]);
    assert.equal(second.code, 0, JSON.stringify(second.events.slice(-3)));
    const notice = second.events.find((e) => e.type === 'notice' && /resuming/.test(String(e.message)));
    assert.ok(notice, 'the second run says it resumes');
    const resumedProgress = second.events.filter((e) => e.type === 'progress');
    assert.ok((resumedProgress[0].done as number) >= before, 'it starts from the items already on disk');

    const uninterrupted = await runEval([...common, '--out', whole]);
    assert.equal(uninterrupted.code, 0);

    const a = JSON.parse(fs.readFileSync(killed, 'utf8'));
    const b = JSON.parse(fs.readFileSync(whole, 'utf8'));
    assert.equal(a.complete, true);
    assert.equal(a.items.finished, SOLUTIONS);
    assert.deepEqual(a.metrics, b.metrics);
    const ids = itemLines(journal).map((l) => JSON.parse(l).id);
    assert.equal(new Set(ids).size, ids.length, 'no item was evaluated twice');
    assert.equal(ids.length, SOLUTIONS);
  },
);

// The default model keeps its worker inside onnxruntime for seconds per item, so the signal lands
// mid-run: exiting there at once aborted the process ("terminate called … Napi::Error", code 134).
const defaultModel = defaultModelDir();
test(
  'SIGTERM stops an evaluation cleanly while its model worker is busy: exit code 143, no abort, finished items kept',
  {
    timeout: 300_000,
    skip:
      !fs.existsSync(path.join(defaultModel, 'config.json')) &&
      `no default model in ${defaultModel} (bash scripts/setup.sh installs it)`,
  },
  async () => {
    const dir = scratchDir('stepwise-eval-sigterm-');
    const labels = path.join(dir, 'labels.jsonl');
    writeLabels(labels, 40);
    const out = path.join(dir, 'prm.json');
    // The executable's own entry (runCli), which installs the process-wide signal handling; without
    // --prm-dir the default model scores the steps.
    const script = `require(${JSON.stringify(MAIN)}).runCli(process.argv.slice(1));`;
    const child = spawn(
      process.execPath,
      ['-e', script, 'eval', 'prm', '--labels', labels, '--out', out, '--progress', 'json'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    let sent = false;
    child.stderr.on('data', (chunk: Buffer) => {
      const lines = (stderr.slice(stderr.lastIndexOf('\n') + 1) + chunk.toString()).split('\n').slice(0, -1);
      stderr += chunk.toString();
      for (const line of lines) {
        if (sent || !line.startsWith('{')) continue;
        const e = JSON.parse(line) as { type?: string; done?: number };
        if (e.type === 'progress' && (e.done ?? 0) >= 1) {
          sent = true;
          child.kill('SIGTERM');
        }
      }
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    assert.ok(sent, `the run never reported progress: ${stderr.slice(-500)}`);
    assert.deepEqual([code, signal], [143, null], stderr.slice(-1000));
    assert.doesNotMatch(stderr, /terminate called|Napi::Error|Aborted/);
    const kept = itemLines(out.replace(/\.json$/, '.items.jsonl')).length;
    assert.ok(kept >= 1 && kept < 40, `${kept} finished items kept`);
  },
);
