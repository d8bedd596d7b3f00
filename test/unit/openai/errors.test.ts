/**
 * Error paths and protocol details a real model server cannot be made to produce on demand,
 * against a real HTTP server on 127.0.0.1 that answers as each test scripts it.
 */

import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { OpenAIBackend, type OpenAIBackendOptions } from '../../../src/core/model/openai';
import { ModelError } from '../../../src/core/model/types';
import {
  sendJson,
  startHttpServer,
  startSse,
  type Handler,
  type TestHttpServer,
} from '../../servers/http-server';

let server: TestHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A backend on a peer that answers with `handler`. The backend first asks the server about itself
 * (GET /props, /v1/models); unless the handler answers those paths itself (`answersGet`), the peer
 * says 404 to them, as a server without those routes does.
 */
async function backendFor(handler: Handler, options: Partial<OpenAIBackendOptions> = {}, answersGet = false) {
  server = await startHttpServer((req, res) =>
    req.method === 'GET' && !answersGet ? sendJson(res, 404, { detail: 'Not Found' }) : handler(req, res),
  );
  return OpenAIBackend.create({
    baseUrl: `${server.origin}/v1`,
    model: 'm',
    retryBaseDelayMs: 5,
    contextWindow: 2048,
    ...options,
  });
}

/** The API requests: the backend also asks (once, with GET) what the server says about itself. */
const posts = () => server!.requests.filter((r) => r.method === 'POST');

function rejectsWith(code: ModelError['code'], message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof ModelError, `expected a ModelError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  };
}

function chunk(content: string, finish: string | null = null, index = 0) {
  return `data: ${JSON.stringify({ choices: [{ index, delta: { content }, finish_reason: finish }] })}\n\n`;
}

function okStream(res: ServerResponse, text = 'ok') {
  startSse(res);
  res.end(chunk(text) + chunk('', 'stop') + 'data: [DONE]\n\n');
}

const chat = [{ role: 'user' as const, content: 'hi' }];

test('401: endpoint-auth pointing at the API key command; key and custom headers are sent', async () => {
  const b = await backendFor((_req, res) => sendJson(res, 401, { error: { message: 'Invalid API key' } }), {
    apiKey: 'sk-test',
    headers: { 'x-team': 'proofs' },
  });
  await assert.rejects(b.generate(chat), (err: unknown) => {
    rejectsWith('endpoint-auth', /401 Unauthorized.*Invalid API key/)(err);
    assert.match((err as ModelError).hint!, /Set Model Endpoint API Key/);
    return true;
  });
  assert.equal(posts()[0].headers.authorization, 'Bearer sk-test');
  assert.equal(posts()[0].headers['x-team'], 'proofs');
  assert.equal(posts().length, 1, '401 is not retried');
});

test('429 with Retry-After is retried after the time it asks for, then succeeds', async () => {
  const b = await backendFor((_req, res) => {
    if (posts().length === 1) sendJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' });
    else okStream(res, 'after wait');
  });
  const started = Date.now();
  const result = await b.generate(chat);
  assert.equal(result.completions[0].text, 'after wait');
  assert.equal(posts().length, 2);
  assert.ok(Date.now() - started >= 900, 'waited for Retry-After');
});

test('429 that persists: endpoint-rate-limit after every retry', async () => {
  const b = await backendFor((_req, res) => sendJson(res, 429, { error: { message: 'quota' } }), {
    retries: 2,
  });
  await assert.rejects(b.generate(chat), rejectsWith('endpoint-rate-limit', /after 3 attempt/));
  assert.equal(posts().length, 3);
});

test('503 twice then success: retried with backoff', async () => {
  const b = await backendFor((_req, res) => {
    if (posts().length <= 2) sendJson(res, 503, { error: 'loading model' });
    else okStream(res, 'ready');
  });
  assert.equal((await b.generate(chat)).completions[0].text, 'ready');
  assert.equal(posts().length, 3);
});

test('500 that persists: endpoint-server with the server message', async () => {
  const b = await backendFor(
    (_req, res) => sendJson(res, 500, { error: { message: 'CUDA out of memory' } }),
    {
      retries: 1,
    },
  );
  await assert.rejects(b.generate(chat), rejectsWith('endpoint-server', /500.*CUDA out of memory/));
});

test('a stream chunk that is not JSON: endpoint-malformed quoting it', async () => {
  const b = await backendFor((_req, res) => {
    startSse(res);
    res.end(chunk('a') + 'data: {"choices": [oops\n\n');
  });
  await assert.rejects(b.generate(chat), rejectsWith('endpoint-malformed', /not JSON.*oops/));
});

test('a stream that ends without [DONE] or a finish reason: endpoint-malformed', async () => {
  const b = await backendFor((_req, res) => {
    startSse(res);
    res.end(chunk('half an ans'));
  });
  await assert.rejects(
    b.generate(chat),
    rejectsWith('endpoint-malformed', /closed the connection in the middle of a response/),
  );
});

test('finish reasons without [DONE] are accepted (some servers omit it)', async () => {
  const b = await backendFor((_req, res) => {
    startSse(res);
    res.end(chunk('fine') + chunk('', 'length'));
  });
  const [c] = (await b.generate(chat)).completions;
  assert.equal(c.text, 'fine');
  assert.equal(c.finishReason, 'length');
});

test('a stream cut into odd pieces with CRLF and comments, and <think> split off the answer', async () => {
  const b = await backendFor(async (_req, res) => {
    startSse(res);
    const text =
      ': ping\r\n\r\n' +
      ['<thi', 'nk>carry the 1', '</think>', 'The sum is 42.']
        .map((c) => chunk(c).replace(/\n/g, '\r\n'))
        .join('') +
      chunk('', 'stop') +
      'data: [DONE]\r\n\r\n';
    for (let i = 0; i < text.length; i += 7) {
      res.write(text.slice(i, i + 7));
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  const [c] = (await b.generate(chat)).completions;
  assert.equal(c.text, 'The sum is 42.');
  assert.equal(c.reasoning, 'carry the 1');
  assert.equal(c.finishReason, 'eos');
});

test('reasoning the server already separated (reasoning_content) is kept too', async () => {
  const b = await backendFor((_req, res) => {
    startSse(res);
    const r = { choices: [{ index: 0, delta: { reasoning_content: 'think first' }, finish_reason: null }] };
    res.end(`data: ${JSON.stringify(r)}\n\n` + chunk('Answer') + chunk('', 'stop') + 'data: [DONE]\n\n');
  });
  const [c] = (await b.generate(chat)).completions;
  assert.deepEqual([c.text, c.reasoning], ['Answer', 'think first']);
});

test('a server that honours n: one request, interleaved sequences kept apart', async () => {
  const b = await backendFor((req, res) => {
    assert.equal(JSON.parse(req.body).n, 2);
    startSse(res);
    res.end(
      chunk('a', null, 0) +
        chunk('x', null, 1) +
        chunk('b', 'stop', 0) +
        chunk('y', 'length', 1) +
        'data: [DONE]\n\n',
    );
  });
  const result = await b.generate(chat, { n: 2 });
  assert.deepEqual(
    result.completions.map((c) => [c.text, c.finishReason]),
    [
      ['ab', 'eos'],
      ['xy', 'length'],
    ],
  );
  assert.equal(posts().length, 1);
});

test('options go on the wire: sampling, stop, seed, top_k as an extra; logprobs only when asked', async () => {
  const b = await backendFor((_req, res) => okStream(res));
  await b.generate('raw prompt', {
    maxTokens: 7,
    temperature: 0.5,
    topP: 0.9,
    topK: 20,
    seed: 3,
    stop: ['\n\n'],
  });
  const body = JSON.parse(posts()[0].body);
  assert.equal(posts()[0].path, '/v1/completions');
  assert.deepEqual(
    [
      body.prompt,
      body.max_tokens,
      body.temperature,
      body.top_p,
      body.top_k,
      body.seed,
      body.stop,
      body.logprobs,
      body.stream,
    ],
    ['raw prompt', 7, 0.5, 0.9, 20, 3, ['\n\n'], undefined, true],
  );
  assert.equal(body.n, undefined, 'n is only sent when more than one sample is wanted');
  assert.equal(
    body.repeat_penalty,
    undefined,
    "the server's own repetition default applies unless one is set",
  );
  await b.generate('raw prompt', { logprobs: true, repetition: { penalty: 1.2 } });
  await b.generate([{ role: 'user', content: 'hi' }], { logprobs: true });
  const [raw, chatBody] = posts()
    .slice(1)
    .map((r) => JSON.parse(r.body));
  assert.deepEqual([raw.logprobs, raw.repeat_penalty, raw.repetition_penalty], [0, 1.2, 1.2]);
  assert.deepEqual([chatBody.logprobs, chatBody.top_logprobs], [true, 1]);
});

test('a server that refuses top_k (as OpenAI does): dropped from then on, with a warning', async () => {
  const warnings: string[] = [];
  const b = await backendFor(
    (req, res) => {
      if ('top_k' in JSON.parse(req.body)) {
        sendJson(res, 400, { error: { message: 'Unrecognized request argument supplied: top_k' } });
      } else okStream(res, 'without top_k');
    },
    { onWarning: (w) => warnings.push(w) },
  );
  assert.equal((await b.generate(chat, { topK: 40 })).completions[0].text, 'without top_k');
  await b.generate(chat, { topK: 40 });
  assert.equal(posts().length, 3, 'refused once, then never sent again');
  assert.deepEqual(warnings, ['The endpoint does not accept "top_k"; requests are sent without it.']);
});

test('404 for a model the server does not serve names the served ones', async () => {
  const b = await backendFor(
    (req, res) => {
      if (req.path === '/v1/models') sendJson(res, 200, { data: [{ id: 'qwen2.5' }, { id: 'smollm2' }] });
      else sendJson(res, 404, { error: { message: 'model "m" not found' } });
    },
    {},
    true,
  );
  await assert.rejects(
    b.generate(chat),
    rejectsWith('endpoint-not-found', /does not serve a model named "m".*qwen2\.5, smollm2/),
  );
});

test('a server without /v1 in its API is found at the URL as the user wrote it', async () => {
  server = await startHttpServer((req, res) => {
    if (req.path === '/proxy/models') sendJson(res, 200, { data: [{ id: 'm' }] });
    else if (req.path === '/proxy/chat/completions') okStream(res, 'via proxy');
    else sendJson(res, 404, { detail: 'Not Found' });
  });
  const b = OpenAIBackend.create({ baseUrl: `${server.origin}/proxy`, model: 'm' });
  assert.equal((await b.generate(chat)).completions[0].text, 'via proxy');
  assert.equal(b.apiRoot, `${server.origin}/proxy`);
});

test('no model name set: the first model the server lists is used', async () => {
  const b = await backendFor(
    (req, res) => {
      if (req.path === '/v1/models') sendJson(res, 200, { data: [{ id: 'served-one' }] });
      else okStream(res);
    },
    { model: '' },
    true,
  );
  await b.generate(chat);
  assert.equal(JSON.parse(posts().at(-1)!.body).model, 'served-one');
  assert.equal(b.info.name, 'served-one');
});

test('no answer within the deadline: endpoint-unreachable saying how long it waited', async () => {
  const b = await backendFor(() => undefined, { timeoutMs: 300, retries: 0 });
  await assert.rejects(b.generate(chat), rejectsWith('endpoint-unreachable', /did not answer within/));
});

test('a stream that stalls mid-answer: endpoint-server after the idle deadline', async () => {
  const b = await backendFor(
    (_req, res) => {
      startSse(res);
      res.write(chunk('start'));
    },
    { idleTimeoutMs: 300 },
  );
  await assert.rejects(b.generate(chat), rejectsWith('endpoint-server', /stopped sending/));
});

test('a connection dropped mid-stream: endpoint-malformed, not a hang', async () => {
  const b = await backendFor((_req, res) => {
    startSse(res);
    res.write(chunk('partial'));
    setTimeout(() => res.socket?.destroy(), 20);
  });
  await assert.rejects(
    b.generate(chat),
    (err: unknown) => err instanceof ModelError && err.code === 'endpoint-malformed',
  );
});

test('score() over a server with aligned echo log-probabilities returns the continuation tokens', async () => {
  // The probe: "The capital of France is" → " Paris" at -0.25; echoing gives the same value.
  const b = await backendFor((req, res) => {
    const body = JSON.parse(req.body);
    if (!body.echo) {
      sendJson(res, 200, {
        choices: [
          { text: ' Paris', logprobs: { tokens: [' Paris'], token_logprobs: [-0.25], text_offset: [24] } },
        ],
      });
      return;
    }
    const words: string[] = body.prompt.match(/\s?\S+/g);
    const offsets = words.map((_, i) => words.slice(0, i).join('').length);
    const logprobs = words.map((w, i) => (i === 0 ? null : w === ' Paris' ? -0.25 : -1));
    sendJson(res, 200, {
      choices: [
        { text: body.prompt, logprobs: { tokens: words, token_logprobs: logprobs, text_offset: offsets } },
      ],
    });
  });
  const r = await b.score('Two plus two is', ' four, surely');
  assert.deepEqual(
    r.tokens.map((t) => t.text),
    [' four,', ' surely'],
  );
  assert.equal(r.totalLogprob, -2);
});

test('score() on a server without completions logprobs: endpoint-unsupported, clearly', async () => {
  const b = await backendFor((_req, res) =>
    sendJson(res, 200, { choices: [{ text: ' x', logprobs: null }] }),
  );
  await assert.rejects(b.score('a', ' b'), rejectsWith('endpoint-unsupported', /cannot score/));
});

test('score() of chat messages without a chat template says what is missing', async () => {
  const b = await backendFor((_req, res) => okStream(res));
  await assert.rejects(b.score(chat, 'x'), rejectsWith('endpoint-unsupported', /chat template/));
});

test('a disposed backend aborts in-flight requests and refuses new ones', async () => {
  const b = await backendFor((_req, res) => {
    startSse(res);
    res.write(chunk('never ends'));
  });
  let streaming!: () => void;
  const firstToken = new Promise<void>((resolve) => (streaming = resolve));
  const pending = b.generate(chat, { onToken: () => streaming() });
  await firstToken;
  await b.dispose();
  const result = await pending;
  assert.equal(result.completions[0].finishReason, 'abort');
  assert.equal(result.completions[0].text, 'never ends');
  await assert.rejects(b.generate(chat), rejectsWith('aborted'));
});
