import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LOOP_SAMPLING_LENGTHS } from '../../../src/core/loop/solutions';
import { loopCommand } from '../../../src/cli/commands/loop';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../../../src/core/model/lengths';
import { PROVE_DEFAULTS } from '../../../src/core/prove/runSchema';

const RUNS = path.join(__dirname, '../../../../bench/runs');

test("the loop's shorter lengths are the ones the shipped runs were sampled with", () => {
  const journals = fs
    .readdirSync(RUNS)
    .filter((d) => d.startsWith('loop-'))
    .map((d) => path.join(RUNS, d, 'sample-train.jsonl'))
    .filter((f) => fs.existsSync(f));
  assert.ok(journals.length > 0, 'the shipped loop runs keep their sample journals');
  for (const journal of journals) {
    const header = JSON.parse(fs.readFileSync(journal, 'utf8').split('\n')[0]) as {
      fingerprint: { maxTokens: number; selfEvalMaxTokens: number };
    };
    // A rerun of the shipped scripts resumes these journals only if the defaults still match.
    assert.deepEqual(
      { maxTokens: header.fingerprint.maxTokens, selfEvalMaxTokens: header.fingerprint.selfEvalMaxTokens },
      { ...LOOP_SAMPLING_LENGTHS },
      journal,
    );
  }
  assert.ok(LOOP_SAMPLING_LENGTHS.maxTokens < DEFAULT_MAX_OUTPUT_TOKENS);
  assert.equal(PROVE_DEFAULTS.maxTokens, DEFAULT_MAX_OUTPUT_TOKENS);
  assert.ok(LOOP_SAMPLING_LENGTHS.selfEvalMaxTokens < PROVE_DEFAULTS.selfEvalMaxTokens);
});

test("stepwise loop's help states its length defaults and Prove's", () => {
  assert.match(
    loopCommand.usage,
    new RegExp(
      `--max-tokens N: .*default ${LOOP_SAMPLING_LENGTHS.maxTokens}; Prove's is ${DEFAULT_MAX_OUTPUT_TOKENS}`,
    ),
  );
  assert.match(
    loopCommand.usage,
    new RegExp(`--self-eval-max-tokens N: .*default ${LOOP_SAMPLING_LENGTHS.selfEvalMaxTokens}`),
  );
});
