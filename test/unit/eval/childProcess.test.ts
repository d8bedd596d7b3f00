import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runEvalInChild } from '../../../src/core/eval/childProcess';
import type { EvalProgress } from '../../../src/core/eval/runner';
import { tinyPrmDir } from '../model/tinyModel';
import { writeLabels } from './labelsFixture';
import { scratchDir } from '../scratchDir';

const MAIN = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const SCRIPT = `require(${JSON.stringify(MAIN)}).main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`;

test(
  'the editor path: a child evaluation reports progress, stops cleanly when cancelled, and continues later',
  { timeout: 120_000 },
  async () => {
    const dir = scratchDir('stepwise-eval-child-');
    const labels = path.join(dir, 'labels.jsonl');
    writeLabels(labels, 600);
    const command = [
      process.execPath,
      '-e',
      SCRIPT,
      'eval',
      'prm',
      '--labels',
      labels,
      '--prm-dir',
      tinyPrmDir(),
    ];
    const abort = new AbortController();
    const seen: EvalProgress[] = [];
    const stopped = await runEvalInChild({
      command,
      cwd: dir,
      signal: abort.signal,
      onProgress: (p) => {
        seen.push(p);
        if (p.done >= 40) abort.abort();
      },
    });
    assert.equal(stopped.exitCode, 130, stopped.output);
    assert.ok(stopped.done, 'the child said where its results are');
    assert.equal(stopped.done.cancelled, true);
    assert.equal(stopped.done.complete, false);
    assert.equal(
      stopped.done.result,
      path.join(dir, '.stepwise', 'eval', 'prm-labels.json'),
      'default output under .stepwise/eval',
    );
    const partial = JSON.parse(fs.readFileSync(stopped.done.result, 'utf8'));
    assert.ok(partial.items.finished >= 40 && partial.items.finished < 600);
    assert.match(fs.readFileSync(stopped.done.report, 'utf8'), /Incomplete: \d+ of 600 items finished/);
    assert.ok(seen[1].etaMs !== null && seen[1].msPerItem !== null, 'progress carries an ETA');

    const notices: string[] = [];
    const resumed = await runEvalInChild({ command, cwd: dir, onNotice: (m) => notices.push(m) });
    assert.equal(resumed.exitCode, 0, resumed.output);
    assert.equal(resumed.done?.complete, true);
    assert.ok(notices.some((n) => new RegExp(`resuming: ${partial.items.finished} of 600`).test(n)));

    const bad = await runEvalInChild({
      command: [process.execPath, '-e', SCRIPT, 'eval', 'prm', '--labels', path.join(dir, 'none.jsonl')],
      cwd: dir,
    });
    assert.equal(bad.exitCode, 1);
    assert.equal(bad.done, null);
    assert.match(bad.output, /There is no data file at .*none\.jsonl/);
    assert.match(bad.output, /hint: Pass --labels FILE/);
  },
);
