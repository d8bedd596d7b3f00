/** `stepwise eval` against a real OpenAI-compatible server (llama.cpp serving the default model), several items in flight. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runEvalInChild } from '../../../src/core/eval/childProcess';
import { llamaServerUnavailable, startLlamaServer, type LlamaServer } from '../../servers/llama-server';
import { scratchDir } from '../scratchDir';
import { tinyModelDir } from '../model/tinyModel';

const MAIN = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const SCRIPT = `require(${JSON.stringify(MAIN)}).main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`;
const MBPP = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'eval', 'mbpp-tiny.jsonl');
const unavailable = llamaServerUnavailable();

describe('eval against an endpoint', { skip: unavailable }, () => {
  let server: LlamaServer;
  before(async () => {
    // Several requests arrive at once (--concurrency 2): the server must queue them, not drop one.
    server = await startLlamaServer({ queueRequests: true });
  });
  after(async () => {
    await server?.stop();
  });

  test(
    'eval tests generates through the server, two functions at a time, and scores them in the sandbox',
    { timeout: 900_000 },
    async () => {
      const dir = scratchDir('stepwise-eval-endpoint-');
      const done: number[] = [];
      const command = [
        process.execPath,
        '-e',
        SCRIPT,
        'eval',
        'tests',
        '--data',
        MBPP,
        '--limit',
        '2',
        '--max-tokens',
        '16',
        '--mutants',
        '2',
        '--endpoint',
        server.origin,
        '--model',
        server.model,
        '--concurrency',
        '2',
      ];
      const outcome = await runEvalInChild({ command, cwd: dir, onProgress: (p) => done.push(p.done) });
      assert.equal(outcome.exitCode, 0, outcome.output);
      const result = JSON.parse(fs.readFileSync(outcome.done!.result, 'utf8'));
      assert.equal(result.complete, true);
      assert.deepEqual(result.model, { name: server.model, backend: 'openai', device: 'remote' });
      assert.equal(result.settings.maxTokens, 16);
      assert.equal(result.metrics.functions, 2);
      assert.equal(result.metrics.referencePassRate.k, 2, "the dataset's own tests pass on every reference");
      assert.deepEqual(done, [0, 1, 2]);
      assert.equal(result.settings.assertionGrammar, 'auto');

      // Resuming the same journal under another assertion grammar would mix two experiments.
      const other = await runEvalInChild({
        command: [...command, '--assertion-grammar', 'lines'],
        cwd: dir,
        onProgress: () => undefined,
      });
      assert.notEqual(other.exitCode, 0);
      assert.match(other.output, /assertionGrammar: "auto" before, "lines" now/);
    },
  );

  test(
    'eval prove with --endpoint alone runs without step scores instead of failing every problem at them',
    {
      timeout: 900_000,
    },
    async () => {
      const dir = scratchDir('stepwise-eval-endpoint-');
      const data = path.join(dir, 'math.jsonl');
      fs.writeFileSync(
        data,
        JSON.stringify({ problem: 'What is $1 + 1$?', answer: '2', unique_id: 'p1' }) + '\n',
      );
      const notices: string[] = [];
      const outcome = await runEvalInChild({
        command: [
          process.execPath,
          '-e',
          SCRIPT,
          'eval',
          'prove',
          '--data',
          data,
          '--candidates',
          '1',
          '--iterations',
          '1',
          '--max-tokens',
          '16',
          '--no-meta',
          '--endpoint',
          server.origin,
          '--model',
          server.model,
        ],
        cwd: dir,
        onNotice: (message) => notices.push(message),
      });
      assert.equal(outcome.exitCode, 0, outcome.output);
      assert.ok(
        notices.some((m) => /no step scores with --endpoint alone/.test(m)),
        notices.join('\n'),
      );
      const result = JSON.parse(fs.readFileSync(outcome.done!.result, 'utf8'));
      assert.equal(result.settings.stepScores, false);
      assert.match(result.settings.prompts, /^[0-9a-f]{16}$/, 'the prompts are part of the settings');
      assert.equal(result.items.finished, 1);
      const journal = fs
        .readFileSync(outcome.done!.result.replace(/\.json$/, '.items.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"type":"item"'))
        .map((l) => JSON.parse(l));
      assert.equal(journal.length, 1);
      assert.notEqual(journal[0].result.status, 'failed', JSON.stringify(journal[0].result.error));
    },
  );
  test(
    'eval prove judges the endpoint candidates with a separate local verifier, named in the results',
    { timeout: 900_000 },
    async () => {
      const dir = scratchDir('stepwise-eval-endpoint-');
      const data = path.join(dir, 'math.jsonl');
      fs.writeFileSync(
        data,
        JSON.stringify({ problem: 'What is $2 + 2$?', answer: '4', unique_id: 'p1' }) + '\n',
      );
      const notices: string[] = [];
      // prettier-ignore
      const outcome = await runEvalInChild({
        command: [
          process.execPath, '-e', SCRIPT, 'eval', 'prove', '--data', data, '--candidates', '1',
          '--iterations', '1', '--max-tokens', '16', '--no-meta', '--endpoint', server.origin,
          '--model', server.model, '--verifier-model-dir', tinyModelDir(), '--variant', 'fp32',
        ],
        cwd: dir,
        onNotice: (message) => notices.push(message),
      });
      assert.equal(outcome.exitCode, 0, outcome.output);
      // The local verifier gives step scores, so nothing is left out.
      assert.ok(!notices.some((m) => /no step scores/.test(m)), notices.join('\n'));
      const result = JSON.parse(fs.readFileSync(outcome.done!.result, 'utf8'));
      assert.equal(result.model.name, server.model);
      assert.equal(result.settings.verifier, 'tiny-llama');
      assert.deepEqual(result.settings.stepScorer, { kind: 'verifier-logprob', name: 'tiny-llama' });
      assert.equal(result.items.finished, 1);
    },
  );
});
