import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { findPackageRoot } from '../../../src/core/resources';
import { problemFromDocument } from '../../../src/core/steps/document';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { saveRun } from '../../../src/core/prove/runStore';
import { generatorOutput, judgeOutput, promptText, ScriptedBackend } from './scriptedBackend';
import { scratchDir } from '../scratchDir';

/**
 * Runs the CLI in a child process: capturing process.stdout in this process would also swallow the
 * test runner's own report, hiding failures.
 */
async function capture(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const mainModule = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
  const script = `require(${JSON.stringify(mainModule)}).main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`;
  const r = spawnSync(process.execPath, ['-e', script, ...argv], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const example = (...p: string[]) => path.join(findPackageRoot(), 'examples', 'proofs', ...p);

test('parse-proof --json prints the parsed sections of a sample output', async () => {
  const { code, stdout } = await capture(['parse-proof', example('outputs', 'honest-flawed.txt'), '--json']);
  assert.equal(code, 0);
  const parsed = JSON.parse(stdout);
  assert.equal(parsed.selfScore, 0.5);
  assert.equal(parsed.formatReward, 1);
  assert.match(parsed.proof, /^Let \$n\$ be an integer/);
});

test('parse-proof names the format problems of a malformed output', async () => {
  const { code, stdout } = await capture(['parse-proof', example('outputs', 'malformed.txt')]);
  assert.equal(code, 0);
  assert.match(stdout, /format reward: 0/);
  assert.match(stdout, /2 \\boxed\{\} values in the Self Evaluation/);
});

test('parse-proof on a missing file is a usage error naming the file', async () => {
  const { code, stderr } = await capture(['parse-proof', '/no/such/file.txt', '--json']);
  assert.equal(code, 2);
  assert.match(stderr, /cannot read \/no\/such\/file\.txt/);
});

test('prove refuses bad options before loading any model', async () => {
  let r = await capture(['prove', example('sqrt-two-irrational.md'), '--iterations', '0']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--iterations must be a whole number ≥ 1/);
  r = await capture(['prove', example('sqrt-two-irrational.md'), '--rerank-by', 'vibes']);
  assert.match(r.stderr, /--rerank-by must be one of p-correct, prm, verifier, self/);
  r = await capture(['prove', example('sqrt-two-irrational.md'), '--iterations', '40']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /maxIterations/);
  r = await capture(['prove']);
  assert.equal(r.code, 2);
});

test('prove and eval prove refuse a prompts folder that would change nothing, before loading any model', async () => {
  const empty = scratchDir('stepwise-prompts-');
  let r = await capture([
    'prove',
    example('sqrt-two-irrational.md'),
    '--prompts-dir',
    path.join(empty, 'typo'),
  ]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--prompts-dir: The prompt folder .*typo does not exist/);
  const data = path.join(empty, 'math.jsonl');
  fs.writeFileSync(data, JSON.stringify({ problem: 'What is 1+1?', answer: '2' }) + '\n');
  r = await capture(['eval', 'prove', '--data', data, '--prompts-dir', empty]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--prompts-dir: The prompt folder .* holds none of the prove prompts/);
});

test('eval tests refuses a stages file it cannot use, before loading any model', async () => {
  const dir = scratchDir('stepwise-stages-');
  const data = path.join(dir, 'mbpp.jsonl');
  fs.writeFileSync(
    data,
    JSON.stringify({
      task_id: 1,
      text: 'Add.',
      code: 'def add(a, b):\n    return a + b',
      test_list: ['assert add(1, 2) == 3'],
    }) + '\n',
  );
  const stages = path.join(dir, 'stages.json');
  fs.writeFileSync(stages, JSON.stringify({ version: 2, opening: 'x', stages: [] }));
  const r = await capture([
    'eval',
    'tests',
    '--data',
    data,
    '--stages',
    stages,
    '--model-dir',
    path.join(dir, 'none'),
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--stages: The stage definitions in .*stages\.json are invalid/);
});

test('prove with a model folder that does not exist fails with a message, not a stack trace', async () => {
  const missing = path.join(os.tmpdir(), `stepwise-no-model-${process.pid}`);
  const r = await capture([
    'prove',
    example('sqrt-two-irrational.md'),
    '--model-dir',
    missing,
    '--save-dir',
    scratchDir('sw-'),
  ]);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(missing), r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('the problem of a proof document is its ## Problem section; a plain file is the problem', () => {
  const doc = fs.readFileSync(example('sqrt-two-irrational.md'), 'utf8');
  assert.deepEqual(problemFromDocument(doc), { text: 'Prove that $\\sqrt{2}$ is irrational.', problems: [] });
  assert.equal(problemFromDocument('Prove that 2 + 2 = 4.\n').text, 'Prove that 2 + 2 = 4.');
  assert.deepEqual(problemFromDocument('## Problem\n\n## Solution\nx').problems, [
    'the "## Problem" section is empty',
  ]);
  assert.equal(problemFromDocument('# T\n## Problem\nA\n### Hint\nB\n## Solution\nC').text, 'A\n### Hint\nB');
});

test('calibration summarises the saved runs of a folder: reliability, ECE and AUROC against the answers', async () => {
  const dir = scratchDir('sw-cal-');
  const backend = new ScriptedBackend(({ input }) =>
    promptText(input).includes('You are grading a proof')
      ? [judgeOutput('0.5')]
      : [generatorOutput('So the answer is $\\boxed{4}$.', '1')],
  );
  for (const answer of ['4', '5']) {
    const run = await proveAndVerify(
      {
        problem: `What is 2 + 2 (case ${answer})?\nAnswer: ${answer}`,
        options: { metaVerify: false, stepScores: false, maxIterations: 1 },
      },
      { generator: backend },
    );
    await saveRun(run, dir);
  }
  const r = await capture(['calibration', '--runs-dir', dir, '--json']);
  assert.equal(r.code, 0);
  const out = JSON.parse(r.stdout);
  assert.equal(out.runs, 2);
  // Self-score 1 on both; right once: ECE |0.5 − 1| = 0.5, and AUROC ½ (the scores tie).
  assert.equal(out.selfVsAnswer.count, 2);
  assert.equal(out.selfVsAnswer.ece, 0.5);
  assert.equal(out.selfVsAnswer.auroc, 0.5);
  assert.equal(out.selfVsVerifier.bins[9].meanOutcome, 0.5);
  const text = await capture(['calibration', '--runs-dir', dir]);
  assert.match(text.stdout, /self-score vs answer correctness: 2 candidate\(s\), ECE 0\.500, AUROC 0\.500/);
});

test('prove and check refuse a bad --step-scorer, or one beside --prm-dir, before a model loads', async () => {
  const dir = scratchDir('step-scorer-flag-');
  const notHead = path.join(dir, 'not-a-head.json');
  fs.writeFileSync(notHead, '{"schema":"stepwise.learned-scorer","version":1}');
  const head = path.join(findPackageRoot(), 'bench', 'runs', 'learned-steps', 'step-head.json');
  for (const command of ['prove', 'check']) {
    const bad = await capture([command, example('sqrt-two-irrational.md'), '--step-scorer', notHead]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--step-scorer: .*not-a-head\.json: not a learned step head/);
    const both = await capture([
      command,
      example('sqrt-two-irrational.md'),
      '--step-scorer',
      head,
      '--prm-dir',
      dir,
    ]);
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /give --prm-dir or --step-scorer, not both/);
  }
});
