import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  lastBoxed,
  parseJudgeScore,
  parsePairVerdict,
  parseQuestion,
} from '../../../src/core/practice/judge';

test('judge scores: boxed 0–10 mapped to [0, 1], the last box wins, junk is null', () => {
  assert.equal(parseJudgeScore('Fine. \\boxed{7}'), 0.7);
  assert.equal(parseJudgeScore('first \\boxed{2} then \\boxed{10}'), 1);
  assert.equal(parseJudgeScore('\\boxed{8/10}'), 0.8);
  assert.equal(parseJudgeScore('\\boxed{11}'), null);
  assert.equal(parseJudgeScore('\\boxed{great}'), null);
  assert.equal(parseJudgeScore('no verdict'), null);
  assert.equal(
    parseJudgeScore('<think>\\boxed{3}</think> Score: 6'),
    0.6,
    'reasoning inside <think> is not the verdict',
  );
});

test('pair verdicts: A or B only', () => {
  assert.equal(parsePairVerdict('\\boxed{A}'), 'A');
  assert.equal(parsePairVerdict('\\boxed{ b }'), 'B');
  assert.equal(parsePairVerdict('\\boxed{C}'), null);
  assert.equal(parsePairVerdict('both are good'), null);
});

test('questions: the text after "Problem:", cut before any solution', () => {
  assert.equal(parseQuestion('Problem: What is 3^4?\nSolution: 81'), 'What is 3^4?');
  assert.equal(
    parseQuestion('Compute the sum of the first 10 odd numbers.'),
    'Compute the sum of the first 10 odd numbers.',
  );
  assert.equal(parseQuestion('Sure!'), null);
  assert.equal(parseQuestion('I like turtles very much indeed'), null);
});

test('lastBoxed balances nested braces and survives an unclosed box', () => {
  assert.equal(lastBoxed('\\boxed{\\frac{1}{2}}'), '\\frac{1}{2}');
  assert.equal(lastBoxed('\\boxed{unclosed'), null);
});
