/**
 * The OpenAI-compatible backend against a real llama.cpp server (llama-cpp-python) serving the
 * default model, SmolLM2-135M-Instruct, on 127.0.0.1.
 */

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAIBackend } from '../../../src/core/model/openai';
import { ModelError, type TokenEvent } from '../../../src/core/model/types';
import {
  freePort,
  llamaServerUnavailable,
  startLlamaServer,
  type LlamaServer,
} from '../../servers/llama-server';

const unavailable = llamaServerUnavailable();
if (unavailable) console.log(`# llama.cpp server tests skipped: ${unavailable}`);

function isModelError(code: ModelError['code'], message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof ModelError, `expected a ModelError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  };
}

describe('OpenAI backend on a real llama.cpp server', { skip: unavailable }, () => {
  let server: LlamaServer;
  let backend: OpenAIBackend;

  before(async () => {
    server = await startLlamaServer();
    // The server root without /v1: the backend must add it.
    backend = OpenAIBackend.create({ baseUrl: server.origin, model: server.model, contextWindow: 2048 });
  });
  after(async () => {
    await backend?.dispose();
    await server?.stop();
  });

  test('lists the served model', async () => {
    assert.deepEqual(await backend.listModels(), [server.model]);
  });

  test('streams a chat answer token by token with log-probabilities when asked', async () => {
    const events: TokenEvent[] = [];
    const result = await backend.generate([{ role: 'user', content: 'Say hello to Ada.' }], {
      maxTokens: 12,
      temperature: 0,
      logprobs: true,
      onToken: (e) => events.push(e),
    });
    const [c] = result.completions;
    assert.ok(events.length >= 2, 'tokens arrive one by one');
    assert.equal(events.map((e) => e.text).join(''), c.text);
    assert.ok(c.text.length > 0);
    assert.ok(['length', 'eos'].includes(c.finishReason));
    assert.ok(c.tokens.every((t) => typeof t.logprob === 'number' && t.logprob <= 0));
    assert.ok(result.promptTokens > 5);
    assert.ok(result.timeToFirstTokenMs <= result.totalMs);
  });

  test('without being asked, the server computes no log-probabilities (they slow llama-cpp-python down)', async () => {
    const result = await backend.generate([{ role: 'user', content: 'Say hello to Ada.' }], {
      maxTokens: 6,
      temperature: 0,
    });
    const [c] = result.completions;
    assert.ok(c.text.length > 0);
    assert.ok(c.tokens.length > 0 && c.tokens.every((t) => t.logprob === null));
  });

  test('completes a raw prompt with per-token log-probabilities', async () => {
    const result = await backend.generate('The capital of France is', {
      maxTokens: 4,
      temperature: 0,
      logprobs: true,
    });
    const [c] = result.completions;
    assert.equal(c.finishReason, 'length');
    assert.equal(c.tokens.length, 4);
    assert.equal(c.tokens.map((t) => t.text).join(''), c.text);
    assert.ok(c.tokens.every((t) => typeof t.logprob === 'number' && t.logprob <= 0));
  });

  test('the same seed gives the same sample; other seeds give others', async () => {
    // Without log-probabilities: llama-cpp-python computes them slowly, in Python.
    const sample = async (seed: number) =>
      (await backend.generate('Once upon a time', { maxTokens: 12, temperature: 1, seed, logprobs: false }))
        .completions[0].text;
    const first = await sample(42);
    assert.equal(await sample(42), first);
    const others = [await sample(1), await sample(2), await sample(3)];
    assert.ok(
      others.some((t) => t !== first),
      'different seeds should not all repeat the seed-42 sample',
    );
  });

  test('n samples: the server ignores n, so the backend asks again for the rest', async () => {
    const sequences = new Set<number>();
    const result = await backend.generate('Write a word:', {
      maxTokens: 4,
      temperature: 1,
      seed: 7,
      n: 3,
      onToken: (e) => sequences.add(e.sequence),
    });
    assert.equal(result.completions.length, 3);
    assert.deepEqual([...sequences].sort(), [0, 1, 2]);
    assert.ok(result.completions.every((c) => c.tokens.length > 0));
  });

  test('stops at a stop string and does not return it', async () => {
    const result = await backend.generate('1, 2, 3, 4,', { maxTokens: 30, temperature: 0, stop: [' 7'] });
    const [c] = result.completions;
    assert.equal(c.finishReason, 'stop');
    assert.equal(c.text, ' 5, 6,');
  });

  test('cancelling mid-stream keeps the tokens so far and finishes with "abort"', async () => {
    const controller = new AbortController();
    let seen = 0;
    const result = await backend.generate([{ role: 'user', content: 'Tell a long story about a dragon.' }], {
      maxTokens: 200,
      temperature: 0,
      signal: controller.signal,
      onToken: () => {
        if (++seen === 3) controller.abort();
      },
    });
    const [c] = result.completions;
    assert.equal(c.finishReason, 'abort');
    assert.ok(c.tokens.length >= 3 && c.tokens.length < 200, `kept ${c.tokens.length} tokens`);
  });

  test('score() refuses clearly: llama-cpp-python echoes prompt log-probabilities one position off', async () => {
    await assert.rejects(
      backend.score('The capital of France is', ' Paris'),
      isModelError('endpoint-unsupported', /shifted by one position/),
    );
  });

  test('a prompt longer than the context window is refused before generation, with the exact count', async () => {
    const long = 'hello '.repeat(3000);
    await assert.rejects(
      backend.generate(long, { maxTokens: 8 }),
      isModelError('context-overflow', /context window \(2048 tokens\).*takes 3\d\d\d tokens/),
    );
  });

  test('an answer budget that does not fit is cut to the room left, with a warning', async () => {
    const warnings: string[] = [];
    // A window smaller than the server's, so the server itself would not cut the answer.
    const b = OpenAIBackend.create({
      baseUrl: server.origin,
      model: server.model,
      contextWindow: 256,
      onWarning: (w) => warnings.push(w),
    });
    const result = await b.generate('hello '.repeat(150), {
      maxTokens: 200,
      temperature: 0,
      logprobs: false,
    });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /limited to \d+ tokens instead of 200/);
    const room = Number(/limited to (\d+)/.exec(warnings[0])![1]);
    assert.ok(result.completions[0].tokens.length <= room);
  });

  test('a window set larger than the server has: the server refusal becomes context-overflow', async () => {
    const b = OpenAIBackend.create({
      baseUrl: `${server.origin}/v1`,
      model: server.model,
      contextWindow: 8192,
    });
    await assert.rejects(
      b.generate('hello '.repeat(3000), { maxTokens: 8 }),
      isModelError('context-overflow', /2048/),
    );
  });

  test('a wrong base path gives endpoint-not-found naming the right base URL', async () => {
    const b = OpenAIBackend.create({ baseUrl: `${server.origin}/api`, model: server.model });
    await assert.rejects(b.generate('Hi', { maxTokens: 2 }), (err: unknown) => {
      isModelError('endpoint-not-found', /no OpenAI-compatible API at .*\/api\/v1/)(err);
      assert.match((err as ModelError).hint ?? '', new RegExp(`${server.origin}/v1`));
      return true;
    });
  });

  test('an unreachable port gives endpoint-unreachable saying the connection was refused', async () => {
    const port = await freePort();
    const b = OpenAIBackend.create({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'x',
      retries: 1,
      retryBaseDelayMs: 10,
    });
    await assert.rejects(b.generate('Hi'), isModelError('endpoint-unreachable', /connection refused/));
  });
});
