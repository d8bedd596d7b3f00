import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  aggregateStepScores,
  judgmentProbability,
  VerifierStepScorer,
} from '../../../src/core/prove/stepScores';
import { loadPrompt } from '../../../src/core/prove/prompts';
import { promptText, ScriptedBackend } from './scriptedBackend';

test('product and minimum aggregation; no steps gives no score', () => {
  assert.equal(aggregateStepScores([0.5, 0.8], 'product'), 0.4);
  assert.equal(aggregateStepScores([0.5, 0.8], 'min'), 0.5);
  assert.equal(aggregateStepScores([], 'product'), null);
});

test('P(+) / (P(+) + P(−)) from log-probabilities, stable for extreme values', () => {
  assert.ok(Math.abs(judgmentProbability(Math.log(0.3), Math.log(0.1)) - 0.75) < 1e-12);
  assert.equal(judgmentProbability(-1000, -1000), 0.5);
  assert.ok(judgmentProbability(-1, -2000) > 0.999999);
  assert.equal(judgmentProbability(-Infinity, -1), 0);
  assert.equal(judgmentProbability(-Infinity, -Infinity), 0.5);
});

test('each step is judged with the steps before it as context', async () => {
  const backend = new ScriptedBackend(
    () => [],
    (prompt, continuation) => {
      const wrong = promptText(prompt).includes('Next step:\n1 + 1 = 3');
      return Math.log((continuation === '+') === !wrong ? 0.9 : 0.1);
    },
  );
  const scorer = new VerifierStepScorer(backend, loadPrompt('step-judge'));
  const scores = await scorer.scoreSteps('Compute 1 + 1.', ['We add.', '1 + 1 = 3']);
  assert.ok(Math.abs(scores[0] - 0.9) < 1e-9);
  assert.ok(Math.abs(scores[1] - 0.1) < 1e-9);
  assert.match(promptText(backend.scoreCalls[2].prompt), /Proof so far:\nWe add\./);
});
