import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProofOutput } from '../../../src/core/prove/parse';
import { onlyDelimiters, readScore } from '../../../src/core/prove/score';
import { parseJudgment } from '../../../src/core/prove/verify';

/**
 * Real endings of self-evaluations, verifier and meta-verifier verdicts: Qwen2.5-Coder-1.5B-Instruct
 * (Q4_K_M, llama.cpp) on the shipped prompts and MATH-500 problems, and the four forms issue 19
 * reports from the same model through an OpenAI-compatible server. Each must give the same score
 * whichever role wrote it.
 */
const REAL: { role: string; text: string; score: number }[] = [
  {
    role: 'self-evaluation (MATH-500 #1)',
    text: 'Every step holds and nothing is missing.\n\nBased on my evaluation, the final overall score should be: \\boxed{1}',
    score: 1,
  },
  {
    role: 'verifier (MATH-500 #1)',
    text: 'The correct way to write \\(\\theta\\) is \\(\\tan^{-1}\\left(\\frac{y}{x}\\right) = \\tan^{-1}\\left(\\frac{3}{0}\\right) = \\frac{\\pi}{2}\\).\n\nBased on my evaluation, the final overall score should be: \\boxed{0.5}\\).',
    score: 0.5,
  },
  {
    role: 'self-evaluation (MATH-500 #2)',
    text: 'to derive the final result. Every step holds and nothing is missing.\n\nBased on my evaluation, the final overall score should be: \\boxed{1}.',
    score: 1,
  },
  {
    role: 'issue 19: closing delimiter after the box',
    text: 'The argument is complete.\n\nBased on my evaluation, the final overall score should be: \\boxed{1}\\)',
    score: 1,
  },
  {
    role: 'issue 19: opening delimiter before the box',
    text: 'The argument is complete.\n\nBased on my evaluation, the final overall score should be: \\(\\boxed{1}',
    score: 1,
  },
  {
    role: 'issue 19: inline math',
    text: 'The argument is complete.\n\nBased on my evaluation, the final overall score should be: \\(\\boxed{1}\\)',
    score: 1,
  },
  {
    role: 'issue 19: dollars',
    text: 'The argument is complete.\n\nBased on my evaluation, the final overall score should be: $\\boxed{1}$',
    score: 1,
  },
  {
    role: 'display math and bold',
    text: 'The argument is complete.\n\nBased on my evaluation, the final overall score should be: **\\[\\boxed{0}\\]**',
    score: 0,
  },
];

test('one reader: every real ending gives its score, the same for the self-evaluation, the verifier and the meta-verifier', () => {
  for (const { role, text, score } of REAL) {
    assert.equal(readScore(text, 'unit').score, score, role);
    assert.equal(parseJudgment(text).score, score, `${role} as a verifier verdict`);
    const self = parseProofOutput(
      `## Solution\nA proof.\n\n## Self Evaluation\nHere is my evaluation of the solution: ${text}`,
    );
    assert.equal(self.selfScore, score, `${role} as a self-evaluation`);
    assert.equal(
      self.formatReward,
      1,
      `${role}: delimiters around the box do not reject the format (${self.problems.join('; ')})`,
    );
  }
});

test('a paraphrased closing ("Based on my analysis") still gives the box, as the meta-verifier wrote it', () => {
  const meta =
    "All steps are accurate and the evaluation accurately reflects the student's understanding.\n\nBased on my analysis, the final overall score should be: \\boxed{0.5}";
  const r = readScore(meta, 'unit');
  assert.equal(r.score, 0.5);
  assert.equal(r.closing, false);
  assert.match(r.reasons, /^All steps are accurate/);
});

test('delimiters are only delimiters: text after the box is not', () => {
  assert.equal(onlyDelimiters(' \\) . $ ** '), true);
  assert.equal(onlyDelimiters('\\]'), true);
  assert.equal(onlyDelimiters(' but maybe 0.5'), false);
  const trailing = readScore(
    'Based on my evaluation, the final overall score should be: \\boxed{1} but maybe 0.5',
    'unit',
  );
  assert.equal(trailing.score, 1);
  assert.equal(trailing.endsWithScore, false);
});

test('the reasons before a verdict are the text before the closing sentence', () => {
  const r = readScore(
    'Step 2 is wrong.\nBased on my evaluation, the final overall score should be: \\boxed{0}',
    'unit',
  );
  assert.equal(r.reasons, 'Step 2 is wrong.');
  assert.equal(
    readScore('Based on my evaluation, the final overall score should be: \\boxed{0}', 'unit').reasons,
    '',
  );
});
