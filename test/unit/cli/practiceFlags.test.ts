import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../../src/cli/command';
import { practiceCommand } from '../../../src/cli/commands/practice';

test('the retraining flags without --retrain-generator are a usage error, before any model loads', async () => {
  for (const flags of [['--trainer-args=--max-steps 1'], ['--python', 'python3']])
    await assert.rejects(
      practiceCommand.run(['generate', '--rounds', '2', ...flags, '--model-dir', 'no-such-model-folder']),
      (e: unknown) => e instanceof UsageError && /go with --retrain-generator BASE/.test(e.message),
    );
});
