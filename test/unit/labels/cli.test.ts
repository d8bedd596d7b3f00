import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scratchDir } from '../scratchDir';

// Runs `stepwise labels ...` through the same module the CLI registers, in its own process, so
// exit codes and stdout/stderr are what a user sees.
const RUNNER = `
const { labelsCommand } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/cli/commands/labels.js'))});
const { UsageError } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/cli/command.js'))});
labelsCommand.run(process.argv.slice(1)).then((code) => { process.exitCode = code; }, (err) => {
  process.stderr.write(err.message + '\\n');
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
`;

function labels(...args: string[]) {
  const r = spawnSync(process.execPath, ['-e', RUNNER, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('labels add prints the saved record; check counts valid, superseded and corrupt lines', () => {
  const store = scratchDir('stepwise-cli-');
  // The first step of one solution, rated `rating`: adding it twice relabels the same step.
  const rateFirstStep = (rating: string) =>
    labels(
      'add',
      '--store',
      store,
      '--problem',
      'p1',
      '--step-text',
      'Let n = 2k.',
      '--rating',
      rating,
      '--step-index',
      '0',
      '--solution-id',
      's1',
    );
  const added = rateFirstStep('1');
  assert.equal(added.code, 0, added.stderr);
  const record = JSON.parse(added.stdout);
  assert.equal(record.rating, 1);
  assert.equal(record.source, 'cli');
  assert.ok(
    fs.readFileSync(path.join(store, 'labels.jsonl'), 'utf8').includes(record.id),
    'printed only what is in the file',
  );

  assert.equal(
    labels('add', '--store', store, '--problem', 'p1', '--step-text', 'x', '--rating', '2').code,
    2,
    'a bad rating is a usage error',
  );
  const changed = JSON.parse(rateFirstStep('-1').stdout);
  assert.equal(changed.supersedes, record.id, 'relabelling a step supersedes the earlier label');
  fs.appendFileSync(path.join(store, 'labels.jsonl'), 'garbage\n');
  const check = labels('check', '--store', store);
  assert.equal(check.code, 1, 'corrupt lines make check fail');
  const counts = JSON.parse(check.stdout);
  assert.equal(counts.valid, 2);
  assert.equal(counts.superseded, 1);
  assert.equal(counts.corrupt, 1);
  assert.deepEqual(
    counts.corruptLines.map((c: { line: number }) => c.line),
    [3],
  );
});

test('labels check --document counts stale and moved labels of that document', () => {
  const dir = scratchDir('stepwise-cli-');
  const store = path.join(dir, 'labels');
  const doc = path.join(dir, 'proof.md');
  for (const [i, text] of ['Let x = 1.', 'Then x + 1 = 2.'].entries()) {
    assert.equal(
      labels(
        'add',
        '--store',
        store,
        '--problem',
        'p',
        '--step-text',
        text,
        '--rating',
        '1',
        '--step-index',
        String(i),
        '--solution-id',
        'doc:proof.md',
      ).code,
      0,
    );
  }
  fs.writeFileSync(doc, '## Problem\nP\n\n## Solution\nFirst.\nLet x = 1.\nThen x + 1 = 3.\n');
  const check = labels('check', '--store', store, '--document', doc, '--solution-id', 'doc:proof.md');
  assert.equal(check.code, 0, check.stderr);
  const counts = JSON.parse(check.stdout);
  assert.equal(counts.moved, 1);
  assert.equal(counts.stale, 1);
});

test('labels export to TRL and PRM800K, and import back', () => {
  const dir = scratchDir('stepwise-cli-');
  const store = path.join(dir, 'labels');
  const steps: [string, string][] = [
    ['a', '1'],
    ['b', '0'],
    ['c', '-1'],
  ];
  for (const [i, [text, rating]] of steps.entries()) {
    const r = labels(
      'add',
      '--store',
      store,
      '--problem',
      'p',
      '--problem-text',
      'Prove it.',
      '--step-text',
      text,
      '--rating',
      rating,
      '--step-index',
      String(i),
      '--solution-id',
      's',
    );
    assert.equal(r.code, 0, `--rating ${rating} is accepted as written: ${r.stderr}`);
  }
  const trl = labels('export', '--store', store, '--format', 'trl');
  assert.deepEqual(JSON.parse(trl.stdout), {
    prompt: 'Prove it.',
    completions: ['a', 'b', 'c'],
    labels: [true, true, false],
  });
  const strict = labels('export', '--store', store, '--format', 'trl', '--neutral', 'negative');
  assert.deepEqual(JSON.parse(strict.stdout).labels, [true, false, false]);

  const out = path.join(dir, 'prm800k.jsonl');
  assert.equal(labels('export', '--store', store, '--format', 'prm800k', '--out', out).code, 0);
  const other = path.join(dir, 'other');
  const imported = labels('import', '--store', other, out);
  assert.equal(imported.code, 0, imported.stderr);
  assert.deepEqual(JSON.parse(imported.stdout), { imported: 3, skippedLines: 0 });
  const again = labels('export', '--store', other, '--format', 'trl');
  assert.deepEqual(
    JSON.parse(again.stdout),
    JSON.parse(trl.stdout),
    'the round trip keeps prompt, steps and labels',
  );
  assert.equal(labels('import', '--store', other, path.join(dir, 'missing.jsonl')).code, 2);
});
