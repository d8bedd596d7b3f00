import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OnnxBackend } from '../../../src/core/model/onnx/index';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { ProveRunSchema } from '../../../src/core/prove/runSchema';
import type { ProveEvent } from '../../../src/core/prove/events';
import { loadPrompt, renderPrompt } from '../../../src/core/prove/prompts';
import {
  judgmentProbability,
  NEGATIVE_JUDGMENT,
  POSITIVE_JUDGMENT,
  VerifierStepScorer,
} from '../../../src/core/prove/stepScores';
import { tinyModelDir } from '../model/tinyModel';
import { builtTestModelDir } from '../../testModel';

const PROBLEM = 'Prove that the sum of two even integers is even.';

test('the whole flow runs constrained on a real ONNX backend: both sections and a score distribution by construction', async () => {
  const backend = await OnnxBackend.load({
    modelDir: tinyModelDir(),
    variant: 'fp32',
    device: 'cpu',
    threads: 1,
  });
  try {
    const events: ProveEvent[] = [];
    const run = await proveAndVerify(
      {
        problem: PROBLEM,
        options: {
          maxIterations: 2,
          candidates: 2,
          maxTokens: 24,
          selfEvalMaxTokens: 16,
          verifierMaxTokens: 16,
          seed: 7,
        },
        onEvent: (e) => events.push(e),
      },
      { generator: backend },
    );
    assert.equal(run.status, 'completed', run.error?.message);
    assert.equal(ProveRunSchema.safeParse(JSON.parse(JSON.stringify(run))).success, true);
    assert.deepEqual(run.generation.generator, {
      mode: 'constrained',
      planMode: 'native',
      fallbackReason: null,
    });
    for (const round of run.iterations) {
      assert.equal(round.candidates.length, 2);
      for (const c of round.candidates) {
        assert.equal(c.constrained, true);
        // Random weights, yet both headings, the opening, the closing and one box are there.
        assert.match(
          c.raw,
          /^## Solution\n[\s\S]*\n\n## Self Evaluation\nHere is my evaluation of the solution:[\s\S]*\n\nBased on my evaluation, the final overall score should be: \\boxed\{(0|0\.5|1)\}$/,
        );
        const d = c.selfScoreDistribution;
        assert.deepEqual(
          d?.options.map((o) => o.option),
          ['0', '0.5', '1'],
        );
        assert.ok(Math.abs((d?.options.reduce((a, o) => a + o.probability, 0) ?? 0) - 1) < 1e-6);
        assert.equal(c.parsed.selfScore, d?.expected);
        const streamed = events
          .filter(
            (e) =>
              e.type === 'token' &&
              e.phase === 'generate' &&
              e.iteration === round.index &&
              e.sequence === c.index,
          )
          .map((e) => (e.type === 'token' ? e.text : ''))
          .join('');
        assert.equal(streamed, c.raw);
        if (c.parsed.proof !== '') {
          assert.ok(c.verifier && c.verifier.passes.length === 1);
          assert.equal(c.verifier.passes[0].constrained, true);
          assert.equal(c.verifier.passes[0].distribution?.options.length, 3);
          for (const s of c.stepScores?.steps ?? []) assert.ok(s.score >= 0 && s.score <= 1);
        }
      }
    }
  } finally {
    await backend.dispose();
  }
});

test('free generation on a real ONNX backend: random weights never write the protocol', async () => {
  const backend = await OnnxBackend.load({
    modelDir: tinyModelDir(),
    variant: 'fp32',
    device: 'cpu',
    threads: 1,
  });
  try {
    const run = await proveAndVerify(
      {
        problem: PROBLEM,
        options: { maxIterations: 2, maxTokens: 24, verifierMaxTokens: 16, seed: 7, constrained: false },
      },
      { generator: backend },
    );
    assert.equal(run.status, 'completed', run.error?.message);
    assert.equal(run.generation.generator.fallbackReason, 'constrained generation is turned off');
    // The self-score stays below 1 and the format is rejected, so both rounds run.
    assert.equal(run.iterations.length, 2);
    for (const c of run.iterations.flatMap((r) => r.candidates)) {
      assert.equal(c.constrained, false);
      assert.equal(c.parsed.formatReward, 0);
      assert.equal(c.rewards.r, 0);
    }
  } finally {
    await backend.dispose();
  }
});

test('cancelling a real generation returns a cancelled run that keeps the partial output', async () => {
  const backend = await OnnxBackend.load({
    modelDir: tinyModelDir(),
    variant: 'fp32',
    device: 'cpu',
    threads: 1,
  });
  try {
    const controller = new AbortController();
    let tokens = 0;
    const run = await proveAndVerify(
      {
        problem: PROBLEM,
        options: { maxTokens: 200 },
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'token' && ++tokens === 3) controller.abort();
        },
      },
      { generator: backend },
    );
    assert.equal(run.status, 'cancelled');
    assert.equal(run.iterations.length, 1);
    assert.ok(run.iterations[0].candidates[0].raw.length > 0);
    assert.equal(run.iterations[0].candidates[0].verifier, null);
  } finally {
    await backend.dispose();
  }
});

// The test suites' real model (SmolLM2-135M, see test/testModel.ts), not the product's slower default.
const testModel = builtTestModelDir();

test(
  'the test model completes a prove round and its output is parsed and judged',
  { skip: testModel === undefined && 'the test model is not built (scripts/build-default-model.sh)' },
  async () => {
    const backend = await OnnxBackend.load({
      modelDir: testModel as string,
      variant: 'fp32',
      device: 'auto',
    });
    try {
      const run = await proveAndVerify(
        {
          problem: 'What is the units digit of $18^6$?\nAnswer: 4',
          options: { maxIterations: 1, maxTokens: 64, selfEvalMaxTokens: 32, verifierMaxTokens: 48, seed: 1 },
        },
        { generator: backend },
      );
      assert.equal(run.status, 'completed', run.error?.message);
      const c = run.iterations[0].candidates[0];
      assert.ok(c.raw.trim().length > 0, 'the model wrote something');
      // Constrained: the default model's answer has both sections and a self-score every time.
      assert.equal(c.constrained, true);
      assert.ok(c.parsed.proof !== '' && c.parsed.selfAnalysis !== '' && c.parsed.selfScore !== null, c.raw);
      assert.equal(c.answerCheck?.reference, '4');
      assert.equal(c.verifier?.passes[0].distribution?.options.length, 3);
      assert.equal(ProveRunSchema.safeParse(JSON.parse(JSON.stringify(run))).success, true);
      assert.equal(run.models.generator.name, 'SmolLM2-135M-Instruct');
    } finally {
      await backend.dispose();
    }
  },
);

test('step scores from one pass (a choice between + and −) equal P(+) / (P(+) + P(−)) from two scored passes', async () => {
  const backend = await OnnxBackend.load({
    modelDir: tinyModelDir(),
    variant: 'fp32',
    device: 'cpu',
    threads: 1,
  });
  try {
    const template = loadPrompt('step-judge');
    const steps = ['Let the integers be 2a and 2b.', 'Their sum is 2(a + b), which is even.'];
    const scores = await new VerifierStepScorer(backend, template).scoreSteps(PROBLEM, steps);
    assert.equal(scores.length, 2);
    for (const [i, step] of steps.entries()) {
      const prompt = [
        {
          role: 'user' as const,
          content: renderPrompt(template, {
            problem: PROBLEM,
            previousSteps: i === 0 ? '(this is the first step)' : steps.slice(0, i).join('\n\n'),
            step,
          }),
        },
      ];
      const positive = await backend.score(prompt, POSITIVE_JUDGMENT);
      const negative = await backend.score(prompt, NEGATIVE_JUDGMENT);
      const expected = judgmentProbability(positive.totalLogprob, negative.totalLogprob);
      assert.ok(Math.abs(scores[i] - expected) < 1e-4, `step ${i + 1}: ${scores[i]} vs ${expected}`);
    }
  } finally {
    await backend.dispose();
  }
});
