/**
 * Every parser that reads model output (or a file a person wrote) runs in linear time: fuzzed with
 * fast-check on token soup and on the shape regular-expression attacks take (a prefix, one token
 * repeated thousands of times, a suffix), each input up to 20 kB must parse within a generous bound.
 * Parsers never throw on such input either.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseProofOutput, stripThinking } from '../../../src/core/prove/parse';
import { parseJudgment } from '../../../src/core/prove/verify';
import { boxedNumber, findBoxed } from '../../../src/core/prove/boxed';
import { parsePromptFile } from '../../../src/core/prove/prompts';
import { problemSlug } from '../../../src/core/prove/runStore';
import { splitSteps } from '../../../src/core/steps/split';
import { parseProofDocument, problemFromDocument } from '../../../src/core/steps/document';
import {
  parseJudgeScore,
  parsePairVerdict,
  parseQuestion,
  stripThink,
} from '../../../src/core/practice/judge';
import { splitReasoning } from '../../../src/core/model/openai/think';
import { codeBlocks, extractTests } from '../../../src/core/tests/extractTests';
import { parseAssertionLines } from '../../../src/core/tests/assertions';
import { dropEmptyCaptures, parseJunit } from '../../../src/core/sandbox/junit';

const MAX_LENGTH = 20_000;
const BOUND_MS = 200;

const TOKENS = [
  '#',
  '##',
  ' ',
  '\t',
  ':',
  '\n',
  '\r\n',
  '\r',
  'Solution',
  'Self Evaluation',
  'self-evaluation',
  '$',
  '$$',
  '\\boxed{',
  '{',
  '}',
  '<think>',
  '</think>',
  '```',
  '```python\n',
  'score',
  'Score: ',
  '-',
  '---',
  '~~~',
  '<!--',
  '-->',
  'Problem:',
  '## Problem',
  'Problem',
  '\\begin{proof}',
  '\\end{proof}',
  '\\begin{problem}',
  'Here is my evaluation of the solution:',
  'Based on my evaluation, the final overall score should be:',
  '1',
  '0.5',
  '7',
  '/10',
  '\\frac{1}{2}',
  'assert ',
  'f(',
  ')',
  ' == ',
  ',',
  '[',
  ']',
  'pytest.approx(',
  'with pytest.raises(ValueError): ',
  'assert.deepStrictEqual(',
  '<testcase',
  ' name="a"',
  '/>',
  '>',
  '</testcase>',
  '<failure message="x">',
  '</failure>',
  '<system-out>',
  '<![CDATA[',
  ']]>',
  '&amp;',
  '&#x',
  '&#99999999;',
  'def test_',
  'test(',
  "'",
  '"',
  '\\',
  'Answer:',
  'Solution:',
  '- ',
  '1. ',
  '    ',
  'answer A is better',
  'Captured Out',
  '-----',
  'é',
  '𝔸',
];

const token = fc.constantFrom(...TOKENS);
const soup = fc.array(token, { maxLength: 4000 }).map((t) => t.join(''));
// A prefix, one token repeated thousands of times, a suffix: where backtracking blows up.
const runs = fc
  .tuple(
    fc.array(token, { maxLength: 6 }),
    fc.array(token, { minLength: 1, maxLength: 2 }),
    fc.integer({ min: 500, max: 8000 }),
    fc.array(token, { maxLength: 6 }),
  )
  .map(([pre, unit, n, post]) => pre.join('') + unit.join('').repeat(n) + post.join(''));

// The same shape, aimed: what a parser anchors on, a long run of filler, something that breaks
// the match. Every combination runs as an explicit example (random draws would rarely hit one).
const ANCHORS = [
  '## Solution',
  '# Self Evaluation',
  'score',
  'Score is',
  '\\boxed{',
  '<think>',
  '<!--',
  '```',
  '## Problem',
  '\\begin{problem}',
  '<testcase',
  'Problem',
  'Based on my evaluation, the final overall score should be:',
  '--- Captured Out ',
  'key:',
  '',
];
const FILLERS = [
  ' ',
  '\t',
  '\n',
  ' \n',
  '-',
  '$',
  '#',
  ':',
  '`',
  '1',
  '<think>',
  '```',
  '<!--',
  '<testcase ',
  '\n\n',
  '\t:#',
];
const BREAKERS = ['x', '!', '\n', ''];
const RUN = 6000;
const aimed = (anchor: string, filler: string, breaker: string) =>
  (anchor + filler.repeat(RUN) + breaker).slice(0, MAX_LENGTH);
const EXAMPLES: [string][] = ANCHORS.flatMap((a) =>
  FILLERS.flatMap((f) => BREAKERS.map((b): [string] => [aimed(a, f, b)])),
);
const input = fc.oneof(soup, runs).map((s) => s.slice(0, MAX_LENGTH));

type Parser = (text: string) => unknown;

const PARSERS: [string, Parser][] = [
  ['parseProofOutput', parseProofOutput],
  ['stripThinking', stripThinking],
  ['parseJudgment (unit)', (t) => parseJudgment(t, 'unit')],
  ['parseJudgment (olympiad)', (t) => parseJudgment(t, 'olympiad')],
  ['findBoxed', findBoxed],
  ['boxedNumber', boxedNumber],
  ['parsePromptFile', (t) => parsePromptFile('generate' as never, 'fuzz.md', t)],
  ['problemSlug', problemSlug],
  ['splitSteps', splitSteps],
  ['parseProofDocument', parseProofDocument],
  ['problemFromDocument', problemFromDocument],
  ['parseJudgeScore', parseJudgeScore],
  ['parsePairVerdict', parsePairVerdict],
  ['parseQuestion', parseQuestion],
  ['stripThink', stripThink],
  ['splitReasoning', splitReasoning],
  ['codeBlocks', codeBlocks],
  ['parseJunit', parseJunit],
  ['dropEmptyCaptures', dropEmptyCaptures],
];

function timed(parse: Parser, text: string): number {
  const started = performance.now();
  parse(text);
  return performance.now() - started;
}

for (const [name, parse] of PARSERS) {
  test(`${name} parses any 20 kB input within ${BOUND_MS} ms`, () => {
    timed(parse, 'warm up ## Solution\n'.repeat(50));
    fc.assert(
      fc.property(input, (text) => {
        const ms = timed(parse, text);
        assert.ok(
          ms < BOUND_MS,
          `${name} took ${ms.toFixed(0)} ms on ${text.length} characters: ${JSON.stringify(text.slice(0, 120))}…`,
        );
      }),
      { numRuns: 60, seed: 16, examples: EXAMPLES, endOnFailure: true },
    );
  });
}

const ASYNC_PARSERS: [string, (text: string) => Promise<unknown>][] = [
  ['extractTests (python)', (t) => extractTests(t, 'python', 1)],
  ['extractTests (javascript)', (t) => extractTests(t, 'javascript', 1)],
  ['parseAssertionLines (python)', (t) => parseAssertionLines(t, 'python', 'f')],
  ['parseAssertionLines (javascript)', (t) => parseAssertionLines(t, 'javascript', 'f')],
];

for (const [name, parse] of ASYNC_PARSERS) {
  // tree-sitter parses each line on its own: a bound per kilobyte rather than per input.
  test(`${name} parses any 20 kB input in linear time`, async () => {
    await parse('assert f(1) == 2\n');
    await fc.assert(
      fc.asyncProperty(input, async (text) => {
        const started = performance.now();
        await parse(text);
        const ms = performance.now() - started;
        const bound = BOUND_MS + (text.length / 1000) * 50;
        assert.ok(ms < bound, `${name} took ${ms.toFixed(0)} ms on ${text.length} characters`);
      }),
      { numRuns: 20, seed: 16, endOnFailure: true },
    );
  });
}
