import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProofOutput, stripThinking } from '../../../src/core/prove/parse';
import { boxedNumber, findBoxed } from '../../../src/core/prove/boxed';
import { generatorOutput } from './scriptedBackend';

const PROOF =
  'Suppose $\\sqrt 2 = p/q$ in lowest terms. Then $p^2 = 2q^2$, so $p$ is even, and then $q$ is even too.';

test('a well-formed output is split into proof, analysis and score with format reward 1', () => {
  const parsed = parseProofOutput(generatorOutput(PROOF, '0.5', 'Step 2 needs a lemma.'));
  assert.equal(parsed.proof, PROOF);
  assert.equal(
    parsed.selfAnalysis.startsWith('Here is my evaluation of the solution: Step 2 needs a lemma.'),
    true,
  );
  assert.equal(parsed.selfScore, 0.5);
  assert.equal(parsed.formatReward, 1);
  assert.deepEqual(parsed.problems, []);
});

test('each allowed self-score is read, including \\frac{1}{2} with nested braces', () => {
  for (const [box, value] of [
    ['0', 0],
    ['1', 1],
    ['0.5', 0.5],
    ['\\frac{1}{2}', 0.5],
    ['1.0', 1],
  ] as const) {
    const parsed = parseProofOutput(generatorOutput(PROOF, box));
    assert.equal(parsed.selfScore, value, box);
    assert.equal(parsed.formatReward, 1, box);
  }
});

test('a value outside {0, 0.5, 1} gives no self-score and names the value', () => {
  const parsed = parseProofOutput(generatorOutput(PROOF, '0.7'));
  assert.equal(parsed.selfScore, null);
  assert.equal(parsed.formatReward, 0);
  assert.match(parsed.problems.join('\n'), /0\.7 is not one of 0, 0\.5, 1/);
});

test('a non-numeric box is a problem, not a crash', () => {
  const parsed = parseProofOutput(generatorOutput(PROOF, 'correct'));
  assert.equal(parsed.selfScore, null);
  assert.match(parsed.problems.join('\n'), /not a number/);
});

test('a \\boxed answer inside the proof is part of the proof, never the self-score', () => {
  const proofWithBox = 'Hence the answer is $\\boxed{1}$.';
  const text = `## Solution\n${proofWithBox}\n\n## Self Evaluation\nHere is my evaluation of the solution: no score given.`;
  const parsed = parseProofOutput(text);
  assert.equal(parsed.proof, proofWithBox);
  assert.equal(parsed.selfScore, null);
  assert.equal(parsed.formatReward, 0);
  assert.match(parsed.problems.join('\n'), /no \\boxed\{\} score in the Self Evaluation/);
});

test('a proof containing \\boxed{0} does not change a self-score of 1', () => {
  const parsed = parseProofOutput(generatorOutput('So $x = \\boxed{0}$.', '1'));
  assert.equal(parsed.selfScore, 1);
  assert.equal(parsed.proof, 'So $x = \\boxed{0}$.');
  assert.equal(parsed.formatReward, 1);
});

test('several boxes in the self-evaluation are flagged; the closing sentence decides the score', () => {
  const text = generatorOutput(PROOF, '0.5', 'I first thought \\boxed{1} but step 2 is shaky.');
  const parsed = parseProofOutput(text);
  assert.equal(parsed.selfScore, 0.5);
  assert.equal(parsed.formatReward, 0);
  assert.match(parsed.problems.join('\n'), /2 \\boxed\{\} values in the Self Evaluation/);
});

test('several boxes without the closing sentence: the last is read, as for every role, and the format is rejected', () => {
  const text = `## Solution\n${PROOF}\n## Self Evaluation\nHere is my evaluation of the solution: \\boxed{1} or \\boxed{0}`;
  const parsed = parseProofOutput(text);
  assert.equal(parsed.selfScore, 0);
  assert.equal(parsed.formatReward, 0);
  assert.match(parsed.problems.join('\n'), /2 \\boxed\{\} values in the Self Evaluation; expected one/);
});

test('missing opening and closing sentences are named', () => {
  const text = `## Solution\n${PROOF}\n## Self Evaluation\nLooks fine. Score: \\boxed{1}`;
  const parsed = parseProofOutput(text);
  assert.equal(parsed.selfScore, 1, 'a lone box is still read');
  assert.equal(parsed.formatReward, 0);
  const problems = parsed.problems.join('\n');
  assert.match(problems, /does not start with "Here is my evaluation of the solution:"/);
  assert.match(problems, /does not end with "Based on my evaluation/);
});

test('text after the closing sentence breaks the format', () => {
  const parsed = parseProofOutput(generatorOutput(PROOF, '1') + '\nActually, I am not sure.');
  assert.equal(parsed.formatReward, 0);
  assert.match(parsed.problems.join('\n'), /does not end with its closing sentence/);
});

test('a closing box wrapped in $...$ with a final period is accepted', () => {
  const text = generatorOutput(PROOF, '1').replace('\\boxed{1}', '$\\boxed{1}$.');
  const parsed = parseProofOutput(text);
  assert.equal(parsed.selfScore, 1);
  assert.equal(parsed.formatReward, 1);
});

test('a missing Self Evaluation leaves the whole rest as the proof', () => {
  const parsed = parseProofOutput(`## Solution\n${PROOF}`);
  assert.equal(parsed.proof, PROOF);
  assert.equal(parsed.selfAnalysis, '');
  assert.equal(parsed.selfScore, null);
  assert.deepEqual(parsed.problems, ['missing the "## Self Evaluation" section']);
});

test('a missing Solution heading is named and the text before the evaluation is the proof', () => {
  const text = generatorOutput(PROOF, '1').replace('## Solution\n', '');
  const parsed = parseProofOutput(text);
  assert.equal(parsed.proof, PROOF);
  assert.equal(parsed.selfScore, 1);
  assert.equal(parsed.formatReward, 0);
  assert.deepEqual(parsed.problems, ['missing the "## Solution" section']);
});

test('sections in swapped order are still separated, and flagged', () => {
  const evaluation =
    'Here is my evaluation of the solution: fine.\nBased on my evaluation, the final overall score should be: \\boxed{1}';
  const parsed = parseProofOutput(`## Self Evaluation\n${evaluation}\n\n## Solution\n${PROOF}`);
  assert.equal(parsed.proof, PROOF);
  assert.equal(parsed.selfAnalysis, evaluation);
  assert.equal(parsed.selfScore, 1);
  assert.equal(parsed.formatReward, 0);
  assert.match(parsed.problems.join('\n'), /comes before "## Solution"/);
});

test('duplicated headings are counted; the proof stops at the first evaluation heading', () => {
  const text =
    `## Solution\n${PROOF}\n## Solution\nmore\n## Self Evaluation\nfirst\n` +
    generatorOutput('x', '0.5').split('\n').slice(3).join('\n');
  const parsed = parseProofOutput(text);
  assert.equal(parsed.proof.startsWith(PROOF), true);
  assert.equal(parsed.proof.includes('Here is my evaluation'), false);
  assert.equal(parsed.selfScore, 0.5, 'the last Self Evaluation holds the verdict');
  const problems = parsed.problems.join('\n');
  assert.match(problems, /2 "## Solution" headings/);
  assert.match(problems, /2 "## Self Evaluation" headings/);
  assert.equal(parsed.formatReward, 0);
});

test('near-miss headings are split but cost the format reward', () => {
  const text = generatorOutput(PROOF, '1')
    .replace('## Solution', '### solution:')
    .replace('## Self Evaluation', '**nope**\n## Self-Evaluation');
  const parsed = parseProofOutput(text);
  assert.equal(parsed.selfScore, 1);
  assert.equal(parsed.formatReward, 0);
  assert.match(parsed.problems.join('\n'), /heading "### solution:" should be written "## Solution"/);
  assert.match(
    parsed.problems.join('\n'),
    /heading "## Self-Evaluation" should be written "## Self Evaluation"/,
  );
});

test('<think> blocks are removed before parsing, including boxes inside them', () => {
  const text = `<think>maybe \\boxed{0}\n## Solution\nwrong</think>\n` + generatorOutput(PROOF, '1');
  const parsed = parseProofOutput(text);
  assert.equal(parsed.proof, PROOF);
  assert.equal(parsed.selfScore, 1);
  assert.equal(parsed.formatReward, 1);
});

test('an unclosed <think> drops the rest and says so; a stray </think> drops what precedes it', () => {
  assert.match(stripThinking('answer <think> never ends').problems[0], /never closed/);
  assert.equal(stripThinking('answer <think> never ends').text, 'answer ');
  assert.equal(stripThinking('thinking inside</think>the answer').text, 'the answer');
});

test('empty, whitespace-only and non-string inputs give empty results without throwing', () => {
  for (const input of ['', '   \n\t', undefined as unknown as string, 42 as unknown as string]) {
    const parsed = parseProofOutput(input);
    assert.equal(parsed.proof, '');
    assert.equal(parsed.selfScore, null);
    assert.equal(parsed.formatReward, 0);
    assert.deepEqual(parsed.problems, ['the output is empty']);
  }
});

test('unicode, CRLF line endings and an unclosed box do not confuse the parser', () => {
  const proof = 'Soit ∑_{k=1}^n k = n(n+1)/2 — récurrence sur n ≥ 1. 🙂';
  const crlf = generatorOutput(proof, '1').replace(/\n/g, '\r\n');
  const parsed = parseProofOutput(crlf);
  assert.equal(parsed.proof, proof);
  assert.equal(parsed.selfScore, 1);
  assert.equal(parsed.formatReward, 1);
  const unclosed = parseProofOutput(
    `## Solution\n${proof}\n## Self Evaluation\nHere is my evaluation of the solution: \\boxed{1`,
  );
  assert.equal(unclosed.selfScore, null);
});

test('a huge output (several MB of repeated text) parses quickly', () => {
  const filler = 'Then $a_{n+1} = a_n + 1$ by the hypothesis \\{ nested \\}.\n'.repeat(60_000);
  const started = Date.now();
  const parsed = parseProofOutput(generatorOutput(filler, '0.5') + ' '.repeat(100_000));
  // Generous bound: a quadratic scan of this input would take minutes, a linear one milliseconds.
  assert.ok(Date.now() - started < 5000);
  assert.equal(parsed.selfScore, 0.5);
  assert.equal(parsed.proof.length > 3_000_000, true);
});

test('findBoxed balances nested braces and skips escaped braces', () => {
  assert.deepEqual(
    findBoxed('a \\boxed{\\frac{1}{2}} b \\boxed{\\{x\\}} c').map((b) => b.content),
    ['\\frac{1}{2}', '\\{x\\}'],
  );
  assert.deepEqual(findBoxed('\\boxed{never closed'), []);
});

test('boxedNumber reads the notations a model writes and refuses the rest', () => {
  assert.equal(boxedNumber(' .5 '), 0.5);
  assert.equal(boxedNumber('$1$'), 1);
  assert.equal(boxedNumber('\\text{0.5}'), 0.5);
  assert.equal(boxedNumber('1/2'), 0.5);
  assert.equal(boxedNumber('\\dfrac{1}{2}'), 0.5);
  assert.equal(boxedNumber('1/0'), null);
  assert.equal(boxedNumber('x+1'), null);
  assert.equal(boxedNumber(''), null);
});
