import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitReasoning } from '../../../src/core/model/openai/think';
import { normaliseBaseUrl, parseBaseUrl } from '../../../src/core/model/openai/url';
import { planContext } from '../../../src/core/model/openai/context';
import { backoffMs, retryAfterMs } from '../../../src/core/model/openai/http';
import { continuationScore, echoAligned } from '../../../src/core/model/openai/echoScore';
import { ModelError } from '../../../src/core/model/types';

test('<think> blocks are split off the answer', () => {
  assert.deepEqual(splitReasoning('<think>\nadd 2 and 2\n</think>\n\nThe answer is 4.'), {
    answer: 'The answer is 4.',
    reasoning: 'add 2 and 2',
  });
  assert.deepEqual(splitReasoning('plain answer'), { answer: 'plain answer' });
});

test('a closing tag without an opening one (template put <think> in the prompt) ends the reasoning', () => {
  assert.deepEqual(splitReasoning('first x, then y</think>Done: 3'), {
    answer: 'Done: 3',
    reasoning: 'first x, then y',
  });
});

test('an unclosed block (cut by max tokens) is all reasoning, never answer', () => {
  assert.deepEqual(splitReasoning('<think>still thinking about'), {
    answer: '',
    reasoning: 'still thinking about',
  });
});

test('several blocks are all kept as reasoning', () => {
  const r = splitReasoning('<think>a</think>X<think>b</think>Y');
  assert.equal(r.answer, 'XY');
  assert.equal(r.reasoning, 'a\n\nb');
});

test('base URLs with or without /v1, trailing slashes or endpoint paths all normalise to the API root', () => {
  for (const raw of [
    'http://127.0.0.1:8080',
    'http://127.0.0.1:8080/',
    'http://127.0.0.1:8080/v1',
    'http://127.0.0.1:8080/v1/',
    'http://127.0.0.1:8080/v1/chat/completions',
    ' http://127.0.0.1:8080/v1/completions ',
  ]) {
    assert.equal(normaliseBaseUrl(raw), 'http://127.0.0.1:8080/v1', raw);
  }
  assert.equal(normaliseBaseUrl('https://host/openai/v1beta'), 'https://host/openai/v1beta');
  assert.deepEqual(parseBaseUrl('https://host/proxy'), {
    apiRoot: 'https://host/proxy/v1',
    asGiven: 'https://host/proxy',
  });
});

test('an invalid base URL is a clear endpoint-not-found error', () => {
  assert.throws(
    () => normaliseBaseUrl('localhost:8080'),
    (e: unknown) => e instanceof ModelError && e.code === 'endpoint-not-found' && /http:\/\//.test(e.message),
  );
  assert.throws(() => normaliseBaseUrl('not a url'), ModelError);
});

test('context plan: fits, is cut with a warning, or is refused', () => {
  assert.deepEqual(planContext(100, 512, 2048, true), { maxTokens: 512 });
  const cut = planContext(1800, 512, 2048, false);
  assert.equal(cut.maxTokens, 248);
  assert.match(cut.warning!, /about 1800 of the 2048/);
  assert.throws(
    () => planContext(2040, 512, 2048, true),
    (e: unknown) => e instanceof ModelError && e.code === 'context-overflow' && /leaving 8/.test(e.message),
  );
});

test('Retry-After in seconds or as a date; backoff grows, is jittered and capped', () => {
  assert.equal(retryAfterMs('3'), 3000);
  assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6_000);
  assert.equal(retryAfterMs(null), undefined);
  assert.equal(retryAfterMs('soon'), undefined);
  const policy = {
    timeoutMs: 1,
    idleTimeoutMs: 1,
    retries: 5,
    retryBaseDelayMs: 100,
    maxRetryDelayMs: 1000,
    contextWindow: 1,
  };
  for (let i = 0; i < 20; i++) {
    const d0 = backoffMs(0, policy);
    const d3 = backoffMs(3, policy);
    assert.ok(d0 >= 50 && d0 <= 100);
    assert.ok(d3 >= 400 && d3 <= 800);
    assert.ok(backoffMs(10, policy) <= 1000);
  }
  assert.equal(backoffMs(0, policy, 60_000), 1000, 'Retry-After is capped');
});

test('echo scoring takes the continuation tokens (and a straddling one), not the generated extra token', () => {
  const echo = {
    tokens: ['The', ' sky', ' is', ' blue', '.'],
    logprobs: [null, -3, -1, -0.5, -0.25],
    offsets: [0, 3, 7, 10, 15],
  };
  const r = continuationScore(echo, 'The sky is', ' blue');
  assert.deepEqual(r.tokens, [{ text: ' blue', logprob: -0.5 }]);
  assert.equal(r.totalLogprob, -0.5);
  const straddle = continuationScore(echo, 'The sky i', 's blue');
  assert.deepEqual(
    straddle.tokens.map((t) => t.text),
    [' is', ' blue'],
  );
});

test('echo alignment check: equal log-probabilities pass, shifted ones fail, odd tokenisation is inconclusive', () => {
  const echo = { tokens: ['A', ' B'], logprobs: [null, -0.3], offsets: [0, 1] };
  assert.equal(echoAligned('A', { text: ' B', logprob: -0.31 }, echo), true);
  assert.equal(echoAligned('A', { text: ' B', logprob: -8 }, echo), false);
  assert.equal(echoAligned('A', { text: ' C', logprob: -0.3 }, echo), undefined);
});
