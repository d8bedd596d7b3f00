import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatePracticeSet } from '../../../src/core/practice/loop';
import { scoreMoments, SCORE_OPTIONS } from '../../../src/core/practice/judging';
import { scoreConsistency, preferenceStability, pairPreference } from '../../../src/core/practice/metrics';
import { promptText, ScriptedBackend, type PlanAnswer } from '../prove/scriptedBackend';

const close = (a: number | null | undefined, b: number) =>
  assert.ok(typeof a === 'number' && Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`);

const base = {
  questions: 1,
  judgePasses: 1,
  pairPasses: 1,
  bestOfN: 1,
  weights: { cons: 0.4, sep: 0.3, stab: 0.3 },
  thresholds: { cons: 0.8, sep: 0.1, stab: 0.7 },
};

/** Questions and answers are free text; the judge answers plans from `judge`. */
function world(judge: (prompt: string) => PlanAnswer) {
  return new ScriptedBackend(
    ({ input, options }) => {
      const text = promptText(input);
      if (text.includes('practice problem')) return ['Problem: What is 2 + 3?'];
      return [(options.temperature ?? 0) > 1 ? 'random guess \\boxed{11}' : 'careful work \\boxed{5}'];
    },
    undefined,
    ({ input }) => [judge(promptText(input))],
  );
}

test('moments of a 0–10 judgment, by hand: half 0, half 10 → mean 0.5, variance 0.25', () => {
  const m = scoreMoments([
    { option: '0', probability: 0.5 },
    { option: '10', probability: 0.5 },
  ]);
  close(m.expected, 0.5);
  close(m.spread, 0.25);
  close(scoreMoments([{ option: '7', probability: 1 }]).spread, 0);
});

test('R_cons on expected scores and their spread: total variance of the mixture of judgments', () => {
  // Answer x: judgments with means 0.4 and 0.6 (variance 0.01) and spreads 0.02 and 0.04 (mean 0.03).
  const r = scoreConsistency([
    { id: 'x', regime: 'greedy', strength: 'strong', scores: [0.4, 0.6], spreads: [0.02, 0.04] },
  ]);
  close(r.value, 1 - (0.03 + 0.01) / 0.25);
  // Scores read from text (no spread): the variance of the repeated scores alone.
  close(scoreConsistency([{ id: 'y', regime: 'g', strength: 'strong', scores: [0.4, 0.6] }]).value, 0.96);
});

test('pairwise verdicts are P(first) from both orders: a judge that always leans to position A is a coin flip', () => {
  const judgments = [
    { first: 's', second: 'w', order: 'ab' as const, winner: 's', pFirst: 0.8 },
    { first: 's', second: 'w', order: 'ba' as const, winner: 'w', pFirst: 0.2 },
  ];
  close(pairPreference(judgments), 0.5);
  // The two verdicts agree with probability 0.8·0.2 + 0.2·0.8.
  close(preferenceStability(judgments).value, 0.32);
});

test('constrained practice judging: no unreadable score by construction, distributions and P(A) kept', async () => {
  const model = world((prompt): PlanAnswer => {
    if (prompt.includes('grading an answer'))
      return prompt.includes('careful work')
        ? { analysis: 'The sum is right.', score: { '9': 0.8, '10': 0.2 } }
        : { analysis: 'The sum is wrong.', score: { '1': 0.5, '2': 0.5 } };
    const a = prompt.split('Answer A:')[1].split('Answer B:')[0];
    return {
      analysis: 'One of them adds correctly.',
      verdict: a.includes('careful work') ? { A: 0.9, B: 0.1 } : { A: 0.1, B: 0.9 },
    };
  });
  const set = await generatePracticeSet({ ...base, generator: model });
  assert.deepEqual(set.judging, { mode: 'constrained', planMode: 'native', fallbackReason: null });
  const q = set.questions[0];
  assert.equal(q.judgeFailures, 0);
  const plan = model.planCalls.find((c) => promptText(c.input).includes('grading an answer'))?.plan;
  assert.deepEqual(
    plan?.map((s) => s.kind),
    ['free', 'text', 'choice', 'text'],
  );
  assert.deepEqual(plan?.[2].kind === 'choice' && plan[2].options, SCORE_OPTIONS);
  close(q.scores['greedy'][0], 0.92);
  close(q.scoreJudgments?.['greedy'][0].spread, 0.8 * 0.81 + 0.2 * 1 - 0.92 ** 2);
  // R_sep from expected scores: 0.92 − 0.15.
  close(q.reliability.rSep, 0.92 - 0.15);
  // P(strong is better): 0.9 shown first, 0.9 shown second.
  assert.deepEqual(
    q.pairJudgments.map((j) => [j.order, j.pFirst, j.winner]),
    [
      ['ab', 0.9, 'greedy'],
      ['ba', 0.9, 'greedy'],
    ],
  );
  close(q.reliability.rStab, 0.9 * 0.9 + 0.1 * 0.1);
});

test('without plan support the judge writes freely and the reason is recorded', async () => {
  const model = new ScriptedBackend(({ input, options }) => {
    const text = promptText(input);
    if (text.includes('practice problem')) return ['Problem: What is 2 + 3?'];
    if (text.includes('grading an answer')) return ['Fine. \\boxed{8}'];
    if (text.includes('comparing two answers')) return ['\\boxed{A}'];
    return [(options.temperature ?? 0) > 1 ? 'hot' : 'careful'];
  });
  const set = await generatePracticeSet({ ...base, generator: model });
  assert.equal(set.judging?.mode, 'free');
  assert.match(set.judging?.fallbackReason ?? '', /no plan script/);
  assert.equal(set.questions[0].scores['greedy'][0], 0.8);
  assert.equal(set.questions[0].pairJudgments[0].pFirst, undefined);
});
