import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meanScore, olympiadToUnit, parseJudgment, runJudge } from '../../../src/core/prove/verify';
import { judgeOutput, ScriptedBackend } from './scriptedBackend';

test('olympiad points map to the 0 / 0.5 / 1 scale: 7 → 1, 1–6 → 0.5, 0 → 0', () => {
  assert.equal(olympiadToUnit(7), 1);
  for (const p of [1, 2, 3, 4, 5, 6]) assert.equal(olympiadToUnit(p), 0.5, String(p));
  assert.equal(olympiadToUnit(0), 0);
  for (const p of [8, -1, 3.5]) assert.equal(olympiadToUnit(p), null, String(p));
});

test('a unit-scale verdict is read from the closing sentence', () => {
  assert.deepEqual(parseJudgment(judgeOutput('0.5')), {
    rawScore: 0.5,
    score: 0.5,
    problems: [],
    reasons: 'Here is my evaluation of the solution: checked.',
  });
});

test('an olympiad verdict keeps its raw points and maps them', () => {
  const j = parseJudgment(
    'Step 3 is missing a case.\nBased on my evaluation, the final overall score should be: \\boxed{6}',
    'olympiad',
  );
  assert.equal(j.rawScore, 6);
  assert.equal(j.score, 0.5);
  assert.equal(parseJudgment(judgeOutput('9'), 'olympiad').score, null);
});

test('a unit-scale verdict outside {0, 0.5, 1} is refused', () => {
  const j = parseJudgment(judgeOutput('7'));
  assert.equal(j.score, null);
  assert.match(j.problems.join('\n'), /7 is not one of 0, 0\.5, 1/);
});

test('the closing box wins over boxes quoted earlier; otherwise the last box is read', () => {
  const quoted = 'The proof claims \\boxed{1} but it is wrong.\n' + judgeOutput('0');
  assert.equal(parseJudgment(quoted).score, 0);
  assert.equal(parseJudgment('first \\boxed{1} then \\boxed{0.5}').score, 0.5);
});

test('a verdict without a box, or only inside <think>, has no score', () => {
  assert.equal(parseJudgment('The proof looks good.').score, null);
  assert.equal(parseJudgment('<think>\\boxed{1}</think> hmm').score, null);
  assert.equal(parseJudgment('').score, null);
});

test('meanScore averages readable passes and ignores unreadable ones', () => {
  assert.equal(
    meanScore([
      { rawScore: 1, score: 1, problems: [] },
      { rawScore: 0, score: 0, problems: [] },
      { rawScore: null, score: null, problems: [] },
    ]),
    0.5,
  );
  assert.equal(meanScore([{ rawScore: null, score: null, problems: [] }]), null);
});

test('runJudge asks for k passes in one batched call and reads each', async () => {
  const backend = new ScriptedBackend(() => [judgeOutput('1'), judgeOutput('0.5'), 'no verdict']);
  const streamed: number[] = [];
  const passes = await runJudge(backend, 'prompt', {
    passes: 3,
    scale: 'unit',
    maxTokens: 64,
    temperature: 0.7,
    onToken: (pass) => streamed.push(pass),
  });
  assert.equal(backend.calls.length, 1);
  assert.equal(backend.calls[0].options.n, 3);
  assert.equal(backend.calls[0].options.temperature, 0.7);
  assert.deepEqual(
    passes.map((p) => p.score),
    [1, 0.5, null],
  );
  assert.deepEqual([...new Set(streamed)], [0, 1, 2]);
});

test('a single judge pass is greedy so that it is repeatable', async () => {
  const backend = new ScriptedBackend(() => [judgeOutput('1')]);
  await runJudge(backend, 'prompt', { passes: 1, scale: 'unit', maxTokens: 64, temperature: 0.7 });
  assert.equal(backend.calls[0].options.temperature, 0);
});

test('a constrained verdict is a plan: opening, bounded analysis, closing, then a choice of the scale', async () => {
  const backend = new ScriptedBackend(
    () => [],
    undefined,
    () => [
      {
        analysis: 'Step 2 divides by zero when n = 0, so the argument fails there.',
        score: { '0': 3, '0.5': 1 },
      },
    ],
  );
  const [pass] = await runJudge(backend, 'prompt', {
    passes: 1,
    scale: 'unit',
    maxTokens: 64,
    temperature: 0.7,
    constrained: true,
    opening: 'Here is my evaluation of the solution:',
  });
  assert.equal(backend.calls.length, 0, 'no free generation');
  const plan = backend.planCalls[0].plan;
  assert.deepEqual(
    plan.map((s) => s.kind),
    ['text', 'free', 'text', 'choice', 'text'],
  );
  assert.equal(plan[0].kind === 'text' && plan[0].text, 'Here is my evaluation of the solution:');
  assert.equal(plan[1].kind === 'free' && plan[1].maxTokens, 64);
  assert.deepEqual(plan[3].kind === 'choice' && plan[3].options, ['0', '0.5', '1']);
  assert.equal(pass.constrained, true);
  assert.equal(pass.withoutReasons, false);
  assert.deepEqual(
    pass.distribution?.options.map((o) => [o.option, o.probability]),
    [
      ['0', 0.75],
      ['0.5', 0.25],
      ['1', 0],
    ],
  );
  assert.equal(pass.score, 0.125, 'the expected score: 0.75·0 + 0.25·0.5');
  assert.equal(pass.rawScore, 0, 'the written verdict is the most likely option');
  assert.match(pass.raw, /Based on my evaluation, the final overall score should be: \\boxed\{0\}$/);
});

test('olympiad verdicts are choices over 0–7 points whose expected score uses the 7 → 1, 1–6 → 0.5 map', async () => {
  const backend = new ScriptedBackend(
    () => [],
    undefined,
    () => [
      { analysis: 'The case n odd is never treated, the rest is right.', score: { '7': 1, '5': 1, '0': 2 } },
    ],
  );
  const [pass] = await runJudge(backend, 'p', {
    passes: 1,
    scale: 'olympiad',
    maxTokens: 64,
    temperature: 0,
    constrained: true,
  });
  assert.deepEqual(backend.planCalls[0].plan[3].kind === 'choice' && backend.planCalls[0].plan[3].options, [
    '0',
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
    '7',
  ]);
  assert.equal(pass.score, 0.25 * 1 + 0.25 * 0.5);
  assert.equal(pass.rawScore, 0);
});

test('a verdict without reasons is flagged, constrained or free', async () => {
  const constrained = new ScriptedBackend(
    () => [],
    undefined,
    () => [{ analysis: '', score: { '1': 1 } }],
  );
  const [a] = await runJudge(constrained, 'p', {
    passes: 1,
    scale: 'unit',
    maxTokens: 64,
    temperature: 0,
    constrained: true,
  });
  assert.equal(a.withoutReasons, true);
  assert.match(a.problems.join('\n'), /without reasons/);
  // The meta-verifier of issue 19 wrote only its closing line.
  const free = new ScriptedBackend(() => [
    'Based on my evaluation, the final overall score should be: \\boxed{1}',
  ]);
  const [b] = await runJudge(free, 'p', { passes: 1, scale: 'unit', maxTokens: 64, temperature: 0 });
  assert.equal(b.score, 1);
  assert.equal(b.withoutReasons, true);
  assert.equal(b.constrained, false);
  const [c] = await runJudge(
    new ScriptedBackend(() => [
      judgeOutput('1').replace('checked.', 'every step follows from the one before it.'),
    ]),
    'p',
    {
      passes: 1,
      scale: 'unit',
      maxTokens: 64,
      temperature: 0,
    },
  );
  assert.equal(c.withoutReasons, false);
});

test('free judge generations do not ask for log-probabilities, which nothing reads', async () => {
  const backend = new ScriptedBackend(() => [judgeOutput('1')]);
  await runJudge(backend, 'prompt', { passes: 1, scale: 'unit', maxTokens: 64, temperature: 0 });
  assert.equal(backend.calls[0].options.logprobs, false);
});
