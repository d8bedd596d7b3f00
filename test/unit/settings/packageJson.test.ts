import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  configurationDrift,
  configurationFromSchema,
  settingsPage,
  type Configuration,
} from '../../../src/core/settings/contributes';
import { settingDefault } from '../../../src/core/settings/schema';
import { PROVE_DEFAULTS, ProveOptionsSchema } from '../../../src/core/prove/runSchema';
import { DEFAULT_ENDPOINT_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_TOKENS } from '../../../src/core/model/lengths';
import { DEFAULT_CALL_RUNS } from '../../../src/core/sandbox/oracle/run';
import { DEFAULT_STAGE_MAX_TOKENS } from '../../../src/core/tests/pipeline';
import { SANDBOX_DEFAULTS } from '../../../src/core/sandbox/limits';

// out/test/unit/settings → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const packageConfiguration = (): Configuration =>
  (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      contributes: { configuration: Configuration };
    }
  ).contributes.configuration;

test("package.json's settings are the schema's: same keys, defaults, bounds, enums and descriptions", () => {
  assert.deepEqual(configurationDrift(packageConfiguration()), [], 'run npm run gen:settings');
});

test('the drift check names each setting whose default, bound or enum differs from the schema', () => {
  const drifted = packageConfiguration();
  drifted.properties['stepwise.prove.maxIterations'].default = 2;
  drifted.properties['stepwise.tests.runs'].maximum = 9;
  drifted.properties['stepwise.model.backend'].enum = ['onnx'];
  delete drifted.properties['stepwise.sandbox.diskMb'];
  drifted.properties['stepwise.old.setting'] = { type: 'string', default: '', scope: 'resource' };
  assert.deepEqual(configurationDrift(drifted), [
    'stepwise.model.backend: enum is ["onnx"] in package.json, ["onnx","openai"] in the schema',
    'stepwise.prove.maxIterations: default is 2 in package.json, 3 in the schema',
    'stepwise.tests.runs: maximum is 9 in package.json, 5 in the schema',
    'stepwise.sandbox.diskMb: missing from package.json',
    'stepwise.old.setting: in package.json, not in the schema',
  ]);
});

test('docs/settings.md lists every setting as the schema declares it', () => {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'settings.md'), 'utf8');
  assert.equal(page, settingsPage(), 'run npm run gen:settings');
  for (const key of Object.keys(configurationFromSchema().properties))
    assert.ok(page.includes(`\`${key}\``), key);
});

test('an option the editor, the CLI and the core flows share has one default', () => {
  const prove = ProveOptionsSchema.parse({});
  assert.equal(settingDefault('prove.maxIterations'), prove.maxIterations);
  assert.equal(settingDefault('prove.verifierMaxTokens'), prove.verifierMaxTokens);
  assert.equal(settingDefault('model.maxOutputTokens'), prove.maxTokens);
  assert.equal(settingDefault('rewards.alpha'), prove.alpha);
  assert.equal(settingDefault('tests.perTestTimeoutMs'), SANDBOX_DEFAULTS.perTestTimeoutMs);
  assert.equal(settingDefault('tests.suiteTimeoutMs'), SANDBOX_DEFAULTS.suiteTimeoutMs);
  assert.equal(settingDefault('tests.memoryMb'), SANDBOX_DEFAULTS.memoryMb);
  assert.equal(settingDefault('sandbox.diskMb'), SANDBOX_DEFAULTS.diskMb);
  // The five stages and the oracle fall back to these when a caller (a benchmark) does not say.
  assert.equal(settingDefault('tests.stageMaxTokens'), DEFAULT_STAGE_MAX_TOKENS);
  assert.equal(settingDefault('tests.runs'), DEFAULT_CALL_RUNS);
  // The endpoint backend falls back to these when the editor or the CLI does not say.
  assert.equal(settingDefault('model.maxOutputTokens'), DEFAULT_MAX_OUTPUT_TOKENS);
  assert.equal(settingDefault('model.openai.timeoutMs'), DEFAULT_ENDPOINT_TIMEOUT_MS);
  // The CLI and the benchmarks read Prove's defaults from PROVE_DEFAULTS.
  assert.deepEqual(PROVE_DEFAULTS, prove);
});
