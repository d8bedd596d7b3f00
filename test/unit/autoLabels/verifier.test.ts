import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifierLabels } from '../../../src/core/autoLabels/verifier';
import type { PlanOptions, PlanResult, PlanSegment } from '../../../src/core/model/plan';
import type { ModelBackend, ModelInput } from '../../../src/core/model/types';
import { parsePromptFile } from '../../../src/core/prove/prompts';

const template = parsePromptFile(
  'step-verdict',
  'step-verdict.md',
  'Problem: {{problem}}\nSo far: {{previousSteps}}\nNext: {{step}}',
);

/** A verifier whose passes vote as scripted, one string of "+"/"-" per step (one char per pass). */
function scriptedVerifier(
  votesPerStep: string[],
  seen: { prompt: string; plan: PlanSegment[]; n?: number }[],
) {
  let call = 0;
  const backend = {
    info: { backend: 'onnx', name: 'scripted', device: 'cpu', contextWindow: 2048 },
    async generatePlan(input: ModelInput, plan: PlanSegment[], options?: PlanOptions): Promise<PlanResult> {
      const prompt = typeof input === 'string' ? input : input[0].content;
      seen.push({ prompt, plan, n: options?.n });
      const votes = votesPerStep[call++];
      return {
        completions: [...votes].map((v) => ({
          text: `checked\nVerdict: ${v}`,
          tokenCount: 3,
          segments: [
            { kind: 'free', name: 'check', text: 'checked', finishReason: 'stop' },
            { kind: 'text', text: '\nVerdict: ' },
            {
              kind: 'choice',
              name: 'verdict',
              text: v,
              distribution: [
                { option: '+', probability: v === '+' ? 0.8 : 0.2 },
                { option: '-', probability: v === '+' ? 0.2 : 0.8 },
              ],
            },
          ],
        })),
        mode: 'native',
        promptTokens: 10,
        timeToFirstTokenMs: 1,
        totalMs: 1,
      };
    },
  };
  return backend as unknown as ModelBackend;
}

const steps = ['a = 1', 'b = a + 1 = 2', 'c = b * 3 = 5', 'so c = 5'];

test('a step is labelled only when every pass agrees, and labelling stops at the first unanimous rejection', async () => {
  const seen: { prompt: string; plan: PlanSegment[]; n?: number }[] = [];
  const labels = await verifierLabels(
    scriptedVerifier(['+++', '+-+', '---', '+++'], seen),
    template,
    'P',
    steps,
    {
      passes: 3,
      checkTokens: 32,
      temperature: 0.8,
    },
  );
  assert.deepEqual(
    labels.map((l) => l.rating),
    [1, null, -1],
  );
  assert.equal(seen.length, 3, 'the step after the unanimous rejection is not judged');
  assert.ok(seen.every((s) => s.n === 3));
  assert.match(seen[2].prompt, /So far: a = 1\nb = a \+ 1 = 2\nNext: c = b \* 3 = 5/);
  assert.ok(Math.abs(labels[1].meanPositive - 0.6) < 1e-9);
});

test('every pass must be sampled: greedy passes would all agree by construction', async () => {
  await assert.rejects(
    verifierLabels(scriptedVerifier([], []), template, 'P', steps, {
      passes: 3,
      checkTokens: 8,
      temperature: 0,
    }),
    /temperature above 0/,
  );
});
