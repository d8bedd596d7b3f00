import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtTestModelDir } from '../../testModel';
import { scratchDir } from '../scratchDir';

// `stepwise loop` through the module the CLI registers, in its own process, as a user runs it.
const RUNNER = `
const { loopCommand } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/cli/commands/loop.js'))});
const { UsageError } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/cli/command.js'))});
loopCommand.run(process.argv.slice(1)).then((code) => { process.exitCode = code; }, (err) => {
  process.stderr.write(err.message + '\\n');
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
`;

/** Runs `stepwise loop` with these options; "--" keeps them the command's, not node's. */
const loopCli = (...options: string[]) =>
  spawnSync(process.execPath, ['-e', RUNNER, '--', ...options], { encoding: 'utf8' });

/** A fresh workspace holding a problems file of these rows (by default one problem with its answer). */
function workspaceWith(rows: object[] = [{ problem: 'What is $2+3$?', answer: '5' }]) {
  const dir = scratchDir('stepwise-loop-cli-');
  const data = path.join(dir, 'problems.jsonl');
  fs.writeFileSync(data, rows.map((row) => JSON.stringify(row) + '\n').join(''));
  return { dir, data };
}

/**
 * `stepwise loop` on that workspace with these options and a model folder that does not exist: a
 * run that gets past checking its options fails at looking for the model.
 */
const loopWithoutModel = ({ dir, data }: { dir: string; data: string }, ...options: string[]) =>
  loopCli('--data', data, '--workspace', dir, ...options, '--model-dir', path.join(dir, 'none'));

test('a wrong --progress is refused before any model or trainer is looked for', () => {
  const ws = workspaceWith();
  const r = loopWithoutModel(ws, '--progress', 'xml');
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--progress must be text or json/);
  assert.ok(!fs.existsSync(path.join(ws.dir, '.stepwise')), 'nothing was written to the workspace');
});

test('--levels keeps the problems of those MATH levels, and refuses levels the data lacks before any model loads', () => {
  const ws = workspaceWith([
    { problem: 'What is $2+3$?', answer: '5', level: 1 },
    { problem: 'What is $2 \\cdot 3$?', answer: '6', level: 2 },
  ]);
  const run = (levels: string) => loopWithoutModel(ws, '--levels', levels);
  let r = run('5');
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--levels 5: the data has no problem of those levels/);
  r = run('one');
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--levels takes whole numbers/);
  // Levels the data has get past the filter: the run goes on to look for the model and fails there.
  r = run('1,2');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /The model folder .*none does not exist/);
});

test('a wrong --unsolved is refused with the two choices before any model loads', () => {
  const ws = workspaceWith();
  const r = loopWithoutModel(ws, '--unsolved', 'drop');
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--unsolved must be skip or label/);
  assert.ok(!fs.existsSync(path.join(ws.dir, '.stepwise')), 'nothing was written to the workspace');
});

test('a --current-prm that is not an exported PRM is refused before any model loads', () => {
  const ws = workspaceWith();
  const { dir } = ws;
  fs.mkdirSync(path.join(dir, 'not-a-prm'));
  const withCurrentPrm = (folder: string) => loopWithoutModel(ws, '--current-prm', folder);
  const r = withCurrentPrm(path.join(dir, 'not-a-prm'));
  assert.equal(r.status, 2, r.stderr);
  assert.match(
    r.stderr,
    /--current-prm .*not-a-prm is not an exported PRM folder: .*holds no verified export \(stepwise_export\.json is missing\)/,
  );
  assert.ok(!fs.existsSync(path.join(dir, '.stepwise')), 'nothing was written to the workspace');
  // A generator's export has the same report file: it is refused too, by what the report says.
  const generator = path.join(dir, 'generator');
  fs.mkdirSync(generator);
  fs.writeFileSync(
    path.join(generator, 'stepwise_export.json'),
    JSON.stringify({ format: 'onnx', verified: true }),
  );
  const g = withCurrentPrm(generator);
  assert.equal(g.status, 2, g.stderr);
  assert.match(
    g.stderr,
    /--current-prm .*generator is not an exported PRM folder: generator is a generator export, not a process reward model/,
  );
});

test('--label-only samples and labels with the model, needs no trainer, and a rerun without it goes on to train', async () => {
  const model = builtTestModelDir();
  if (!model) return assert.fail('the test model is not built: run bash scripts/setup.sh');
  const dir = scratchDir('stepwise-loop-label-only-');
  const data = path.join(dir, 'problems.jsonl');
  fs.writeFileSync(
    data,
    ['What is $2+3$?', 'What is $4+4$?']
      .map((problem, i) => JSON.stringify({ problem, answer: ['5', '8'][i] }) + '\n')
      .join(''),
  );
  const run = (...extra: string[]) =>
    loopCli(
      '--data',
      data,
      '--workspace',
      dir,
      '--train',
      '1',
      '--held-out',
      '1',
      '--solutions',
      '1',
      '--unsolved',
      'label',
      '--max-tokens',
      '24',
      '--self-eval-max-tokens',
      '8',
      '--model-dir',
      model,
      '--variant',
      'fp32',
      ...extra,
    );
  // A trainer that does not exist: --label-only must not look for it.
  let r = run('--label-only', '--python', path.join(dir, 'no-python'));
  assert.equal(r.status, 0, r.stderr);
  const loops = fs.readdirSync(path.join(dir, '.stepwise', 'loop'));
  assert.equal(loops.length, 1);
  const loopDir = path.join(dir, '.stepwise', 'loop', loops[0]);
  assert.ok(!fs.existsSync(path.join(loopDir, 'loop-report.json')), 'the loop is not finished');
  const report = JSON.parse(fs.readFileSync(path.join(loopDir, 'label-report.json'), 'utf8'));
  assert.equal(report.sampled.train, 1);
  assert.equal(report.labelled.train.length, 1);
  assert.ok(
    report.labelled.train[0].estimates,
    'the label journal keeps each step label for a later restore',
  );
  assert.equal(report.state.train, undefined, 'nothing was trained');
  assert.equal(report.verdict, undefined);
  assert.match(r.stderr, /without --label-only to train/);
  const labels = fs
    .readFileSync(path.join(dir, '.stepwise', 'labels', 'labels.jsonl'), 'utf8')
    .trim()
    .split('\n');
  assert.equal(labels.length, report.labelled.train[0].labelled);
  // The same command without it resumes past sampling and labelling and goes on to the trainer.
  r = run('--python', path.join(dir, 'no-python'));
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /no-python/);
  assert.deepEqual(
    fs.readdirSync(path.join(dir, '.stepwise', 'loop')),
    loops,
    'it continued in the same loop folder',
  );
  assert.equal(
    fs
      .readFileSync(path.join(dir, '.stepwise', 'labels', 'labels.jsonl'), 'utf8')
      .trim()
      .split('\n').length,
    labels.length,
    'nothing was labelled again',
  );
});
