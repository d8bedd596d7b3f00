import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { parseProveRun } from '../../../src/core/prove/runSchema';
import { isDone } from '../../../src/core/prove/evaluate';
import {
  generatorOutput,
  judgeOutput,
  promptText,
  ScriptedBackend,
  type PlanAnswer,
} from './scriptedBackend';

const PROBLEM = 'Prove that the sum of two even integers is even.';
const PROOF = 'Let a = 2m and b = 2n.\n\nThen a + b = 2(m + n), which is even.';
const ANALYSIS = 'Both numbers are written as twice an integer and the sum is factored; nothing is missing.';

const isJudge = (text: string) =>
  text.includes('You are grading a proof') || text.includes('check the evaluation');

/** A plan script: generator answers from `generator(call)`, judge verdicts from `judge(prompt)`. */
function planRouter(
  generator: (call: number) => PlanAnswer,
  judge: (prompt: string) => Record<string, number> = () => ({ '1': 1 }),
) {
  let calls = 0;
  return ({ input }: { input: Parameters<typeof promptText>[0] }): PlanAnswer[] => {
    const text = promptText(input);
    if (isJudge(text)) return [{ analysis: ANALYSIS, score: judge(text) }];
    return [generator(calls++)];
  };
}

test('a constrained answer always has both sections and one boxed self-score, whose distribution is kept', async () => {
  const backend = new ScriptedBackend(
    () => [],
    undefined,
    planRouter(
      () => ({ proof: PROOF, selfAnalysis: ANALYSIS, selfScore: { '0': 0.1, '0.5': 0.3, '1': 0.6 } }),
      () => ({ '0.5': 1, '1': 1 }),
    ),
  );
  const run = await proveAndVerify(
    {
      problem: PROBLEM,
      options: { maxIterations: 1, stepScores: false, maxTokens: 300, selfEvalMaxTokens: 40 },
    },
    { generator: backend },
  );
  assert.equal(backend.calls.length, 0, 'nothing was generated freely');
  const plan = backend.planCalls[0].plan;
  assert.deepEqual(
    plan.map((s) => (s.kind === 'text' ? s.text : `<${s.kind}:${'name' in s ? s.name : ''}>`)),
    [
      '## Solution\n',
      '<free:proof>',
      '\n\n## Self Evaluation\nHere is my evaluation of the solution:',
      '<free:selfAnalysis>',
      '\n\nBased on my evaluation, the final overall score should be: \\boxed{',
      '<choice:selfScore>',
      '}',
    ],
  );
  assert.equal(plan[1].kind === 'free' && plan[1].maxTokens, 300, 'the proof budget comes from the options');
  assert.equal(plan[3].kind === 'free' && plan[3].maxTokens, 40);

  const c = run.iterations[0].candidates[0];
  assert.equal(c.constrained, true);
  assert.equal(c.parsed.formatReward, 1);
  assert.equal(c.parsed.proof, PROOF);
  assert.deepEqual(
    c.selfScoreDistribution?.options.map((o) => o.probability),
    [0.1, 0.3, 0.6],
  );
  assert.equal(c.selfScoreDistribution?.chosen, '1');
  assert.ok(Math.abs((c.parsed.selfScore ?? 0) - 0.75) < 1e-12, 'the self-score is the expected value');
  // Rewards from expected values: R_Y = 0.75, R_score = 1 − |0.75 − 0.75| = 1, R_meta = E = 0.75.
  assert.equal(c.verifier?.score, 0.75);
  assert.equal(c.meta?.score, 0.75);
  assert.ok(Math.abs((c.rewards.rScore ?? 0) - 1) < 1e-12);
  assert.ok(Math.abs((c.rewards.r ?? 0) - (0.76 * 0.75 + 0.24 * 0.75)) < 1e-12);
  assert.deepEqual(run.generation.generator, {
    mode: 'constrained',
    planMode: 'native',
    fallbackReason: null,
  });
  assert.equal(c.verifier?.passes[0].constrained, true);
  assert.ok('run' in parseProveRun(JSON.parse(JSON.stringify(run))));
});

test('the meta-verifier gives its analysis before its verdict, and an empty analysis is marked', async () => {
  const backend = new ScriptedBackend(
    () => [],
    undefined,
    ({ input }) => {
      const text = promptText(input);
      if (text.includes('check the evaluation')) return [{ analysis: '', score: { '1': 1 } }];
      if (isJudge(text)) return [{ analysis: ANALYSIS, score: { '1': 1 } }];
      return [{ proof: PROOF, selfAnalysis: ANALYSIS, selfScore: { '1': 1 } }];
    },
  );
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, stepScores: false } },
    { generator: backend },
  );
  const metaCall = backend.planCalls.find((c) => promptText(c.input).includes('check the evaluation'));
  const first = metaCall?.plan[0];
  assert.equal(first?.kind === 'text' && first.text, 'Here is my analysis of the self-evaluation:');
  assert.equal(metaCall?.plan[1].kind, 'free', 'the analysis comes before the choice');
  const meta = run.iterations[0].candidates[0].meta?.passes[0];
  assert.equal(meta?.withoutReasons, true);
  assert.equal(run.iterations[0].candidates[0].verifier?.passes[0].withoutReasons, false);
});

test('a backend that cannot run plans falls back to free generation and says why', async () => {
  const backend = new ScriptedBackend(({ input }) =>
    isJudge(promptText(input)) ? [judgeOutput('1')] : [generatorOutput(PROOF, '1')],
  );
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, stepScores: false } },
    { generator: backend },
  );
  assert.equal(run.generation.generator.mode, 'free');
  assert.match(run.generation.generator.fallbackReason ?? '', /no plan script/);
  const c = run.iterations[0].candidates[0];
  assert.equal(c.constrained, false);
  assert.equal(c.parsed.selfScore, 1);
  assert.deepEqual(
    c.selfScoreDistribution?.options.map((o) => o.probability),
    [0, 0, 1],
  );
  assert.equal(c.selfScoreDistribution?.source, 'parsed');
  assert.equal(c.verifier?.passes[0].constrained, false);
});

test('constrained generation can be turned off (free generation, as training uses)', async () => {
  const backend = new ScriptedBackend(
    ({ input }) => (isJudge(promptText(input)) ? [judgeOutput('1')] : [generatorOutput(PROOF, '1')]),
    undefined,
    () => [{}],
  );
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, stepScores: false, constrained: false } },
    { generator: backend },
  );
  assert.equal(backend.planCalls.length, 0);
  assert.deepEqual(run.generation.generator, {
    mode: 'free',
    planMode: null,
    fallbackReason: 'constrained generation is turned off',
  });
});

test('issue 19 (4): a rejected format is not "done": refinement goes on although the box says 1', async () => {
  // A heading spelt "### Solution" and no opening sentence: format reward 0, yet a boxed 1.
  const rejected =
    '### Solution\n' +
    PROOF +
    '\n\n## Self Evaluation\nAll good.\n\nBased on my evaluation, the final overall score should be: \\boxed{1}';
  const outputs = [rejected, generatorOutput(PROOF, '1')];
  let call = 0;
  const backend = new ScriptedBackend(({ input }) =>
    isJudge(promptText(input)) ? [judgeOutput('1')] : [outputs[call++]],
  );
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 3, stepScores: false } },
    { generator: backend },
  );
  const first = run.iterations[0].candidates[0];
  assert.equal(first.parsed.formatReward, 0);
  assert.equal(first.parsed.selfScore, 1);
  assert.equal(run.iterations.length, 2, 'the rejected answer was refined');
  assert.equal(run.stopReason, 'self-score-1');
});

test('issue 19 (6): an "Answer:" line is the reference answer; the model never sees it; a mismatch is recorded', async () => {
  const backend = new ScriptedBackend(
    () => [],
    undefined,
    ({ input }) =>
      isJudge(promptText(input))
        ? [{ analysis: ANALYSIS, score: { '1': 1 } }]
        : [
            {
              proof: '8^6 ends in 4, yet I conclude that the units digit is 2.',
              answer: '{2}$ and more',
              selfAnalysis: ANALYSIS,
              selfScore: { '1': 1 },
            },
          ],
  );
  const run = await proveAndVerify(
    {
      problem: 'What is the units digit of $18^6$?\n\nAnswer: 4',
      options: { maxIterations: 1, stepScores: false },
    },
    { generator: backend },
  );
  assert.equal(run.problem.text, 'What is the units digit of $18^6$?');
  assert.equal(run.problem.referenceAnswer, '4');
  for (const call of backend.planCalls) assert.doesNotMatch(promptText(call.input), /Answer: 4/);
  // A problem with an answer ends its Solution with a boxed final answer, by construction.
  const plan = backend.planCalls[0].plan;
  assert.deepEqual(
    plan.slice(2, 5).map((s) => (s.kind === 'text' ? s.text : `<${s.kind}>`)),
    ['\n\nFinal answer: $\\boxed', '<free>', '}$'],
  );
  assert.match(run.iterations[0].candidates[0].parsed.proof, /Final answer: \$\\boxed\{2\}\$$/);
  assert.deepEqual(run.iterations[0].candidates[0].answerCheck, {
    answer: '2',
    reference: '4',
    matches: false,
  });

  const given = await proveAndVerify(
    {
      problem: 'What is the units digit of $18^6$?',
      referenceAnswer: '2',
      options: { maxIterations: 1, stepScores: false },
    },
    { generator: backend },
  );
  assert.equal(given.iterations[0].candidates[0].answerCheck?.matches, true);
  const none = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, stepScores: false } },
    { generator: backend },
  );
  assert.equal(none.iterations[0].candidates[0].answerCheck, null);
});

test('issue 19 (7): with step scores off the run records no step scorer', async () => {
  const backend = new ScriptedBackend(({ input }) =>
    isJudge(promptText(input)) ? [judgeOutput('1')] : [generatorOutput(PROOF, '1')],
  );
  const off = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, stepScores: false } },
    { generator: backend },
  );
  assert.equal(off.models.stepScorer, null);
  assert.equal(backend.scoreCalls.length, 0);
  const on = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1 } },
    { generator: backend },
  );
  assert.deepEqual(on.models.stepScorer, { kind: 'verifier-logprob', name: 'scripted' });
});

test('a version 1 run upgrades on reading: free generation, point-mass scores, no reference answer', () => {
  const v1 = {
    schema: 'stepwise.prove-run',
    version: 1,
    id: 'x',
    createdAt: '2026-11-22T09:30:00.000Z',
    status: 'completed',
    stopReason: 'self-score-1',
    error: null,
    problem: { text: PROBLEM, file: null },
    options: { maxIterations: 1 },
    models: {
      generator: { backend: 'onnx', name: 'm', device: 'cpu', contextWindow: 2048 },
      verifier: { backend: 'onnx', name: 'm', device: 'cpu', contextWindow: 2048 },
      stepScorer: null,
    },
    prompts: {},
    iterations: [
      {
        index: 0,
        kind: 'initial',
        refinedFrom: null,
        prompt: 'p',
        candidates: [
          {
            index: 0,
            raw: generatorOutput(PROOF, '1'),
            finishReason: 'stop',
            parsed: { proof: PROOF, selfAnalysis: 'a', selfScore: 1, formatReward: 1, problems: [] },
            verifier: {
              passes: [
                { raw: judgeOutput('0.5'), finishReason: 'stop', rawScore: 0.5, score: 0.5, problems: [] },
              ],
              score: 0.5,
              ms: 1,
            },
            meta: null,
            rewards: { rFormat: 1, rY: 0.5, rScore: 0.5, rMeta: null, rZ: null, r: null },
            stepScores: null,
          },
        ],
        ranking: [0],
        chosen: 0,
        generateMs: 1,
        timeToFirstTokenMs: 1,
        totalMs: 1,
      },
    ],
    final: { iteration: 0, candidate: 0 },
    totalMs: 1,
  };
  const parsed = parseProveRun(v1);
  assert.ok('run' in parsed, 'error' in parsed ? parsed.error : '');
  const run = parsed.run;
  assert.equal(run.version, 2);
  assert.equal(run.generation.generator.mode, 'free');
  assert.equal(run.problem.referenceAnswer, null);
  const c = run.iterations[0].candidates[0];
  assert.equal(c.constrained, false);
  assert.equal(c.selfScoreDistribution?.expected, 1);
  assert.equal(c.verifier?.passes[0].distribution?.chosen, '0.5');
  assert.equal(c.verifier?.passes[0].withoutReasons, true, '"checked." is not an analysis');
});

test('the self-evaluation says "done" only when both its box and its distribution’s most likely value are 1', () => {
  const candidate = (chosen: string, probabilities: number[], formatReward: 0 | 1 = 1) =>
    ({
      parsed: { formatReward },
      selfScoreDistribution: {
        source: 'choice',
        chosen,
        expected: 0,
        optionMass: 1,
        options: ['0', '0.5', '1'].map((option, i) => ({
          option,
          value: Number(option),
          probability: probabilities[i],
        })),
      },
    }) as unknown as Parameters<typeof isDone>[0];
  // Issue 38: a run stopped on "self score 1" while the evaluation the user reads boxed 0.
  assert.equal(isDone(candidate('0', [0.07, 0.06, 0.87])), false, 'the text boxes 0: not done');
  assert.equal(isDone(candidate('1', [0.5, 0.1, 0.4])), false, 'sampled 1, but 0 is what the model believes');
  assert.equal(isDone(candidate('1', [0.07, 0.06, 0.87])), true);
  assert.equal(isDone(candidate('1', [0, 0, 1], 0)), false, 'a rejected format is never done');
});
