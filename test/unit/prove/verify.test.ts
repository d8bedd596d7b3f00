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
  assert.deepEqual(parseJudgment(judgeOutput('0.5')), { rawScore: 0.5, score: 0.5, problems: [] });
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
