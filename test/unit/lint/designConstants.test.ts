import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { DESIGN_CONSTANTS } from '../../../src/core/designConstants';
import { DEFAULT_REWARD_WEIGHTS } from '../../../src/core/prove/rewards';
import { ProveOptionsSchema } from '../../../src/core/prove/runSchema';

// out/test/unit/lint → the repository root.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const settings = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
  }
).contributes.configuration.properties;

test("the settings' defaults for α, β and the reliability thresholds are the shared design constants", () => {
  assert.equal(settings['stepwise.rewards.alpha'].default, DESIGN_CONSTANTS.rewards.alpha);
  assert.equal(settings['stepwise.rewards.beta'].default, DESIGN_CONSTANTS.rewards.beta);
  assert.deepEqual(settings['stepwise.practice.thresholds'].default, DESIGN_CONSTANTS.practice.thresholds);
});

test('the reward code and the run schema take α and β from the shared file', () => {
  assert.deepEqual(DEFAULT_REWARD_WEIGHTS, DESIGN_CONSTANTS.rewards);
  const defaults = ProveOptionsSchema.parse({});
  assert.equal(defaults.alpha, DESIGN_CONSTANTS.rewards.alpha);
  assert.equal(defaults.beta, DESIGN_CONSTANTS.rewards.beta);
});
