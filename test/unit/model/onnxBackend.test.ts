import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { OnnxBackend } from '../../../src/core/model/onnx/index';
import { ModelError, type TokenEvent } from '../../../src/core/model/types';
import { tinyModelDir } from './tinyModel';

let backend: OnnxBackend;

before(async () => {
  backend = await OnnxBackend.load({ modelDir: tinyModelDir(), variant: 'fp32', device: 'auto', threads: 1 });
});
after(async () => {
  await backend?.dispose();
});

test('loads in a worker and reports the model and the device it runs on', () => {
  assert.equal(backend.info.backend, 'onnx');
  assert.equal(backend.info.name, 'tiny-llama');
  assert.ok(['cpu', 'cuda'].includes(backend.info.device));
  assert.equal(backend.info.contextWindow, 2048);
});

test('streams every token through onToken, in order, matching the result', async () => {
  const events: TokenEvent[] = [];
  const r = await backend.generate([{ role: 'user', content: 'Prove that 1 + 1 = 2.' }], {
    maxTokens: 10,
    temperature: 0.8,
    n: 2,
    seed: 3,
    onToken: (e) => events.push(e),
  });
  assert.equal(r.completions.length, 2);
  for (let s = 0; s < 2; s++) {
    const mine = events.filter((e) => e.sequence === s);
    assert.equal(mine.map((e) => e.text).join(''), r.completions[s].text);
    assert.deepEqual(
      mine.filter((e) => e.tokenId !== undefined).map((e) => e.tokenId),
      r.completions[s].tokens.map((t) => t.id),
    );
  }
  assert.ok(r.promptTokens > 5);
  assert.ok(r.timeToFirstTokenMs <= r.totalMs);
});

test('cancellation stops within one token: the result holds exactly the tokens seen before abort', async () => {
  const controller = new AbortController();
  let seen = 0;
  let afterAbort = 0;
  const r = await backend.generate('Once upon a time', {
    maxTokens: 1500,
    temperature: 1,
    seed: 1,
    signal: controller.signal,
    onToken: (e) => {
      if (controller.signal.aborted) afterAbort++;
      if (e.tokenId !== undefined && ++seen === 3) controller.abort();
    },
  });
  assert.equal(r.completions[0].finishReason, 'abort');
  assert.equal(r.completions[0].tokens.length, 3);
  assert.equal(afterAbort, 0);
  // The worker is free again: the next request is answered.
  const next = await backend.generate('Next', { maxTokens: 2, temperature: 0 });
  assert.equal(next.completions[0].tokens.length, 2);
});

test('an already aborted signal returns at once; an aborted score rejects with "aborted"', async () => {
  const controller = new AbortController();
  controller.abort();
  const r = await backend.generate('x', { signal: controller.signal, n: 2 });
  assert.deepEqual(
    r.completions.map((c) => c.finishReason),
    ['abort', 'abort'],
  );
  await assert.rejects(backend.score('x', 'y', { signal: controller.signal }), { code: 'aborted' });
});

test('score returns the log-probability of each continuation token', async () => {
  const r = await backend.score([{ role: 'user', content: 'Is 7 prime?' }], 'Yes, 7 is prime.');
  assert.ok(r.tokens.length >= 5);
  for (const t of r.tokens) assert.ok((t.logprob as number) < 0);
  assert.equal(r.tokens.map((t) => t.text).join(''), 'Yes, 7 is prime.');
});

test('the worker keeps the caller thread free: timers fire during generation', async () => {
  const ticks: number[] = [];
  const timer = setInterval(() => ticks.push(performance.now()), 5);
  const started = performance.now();
  const r = await backend.generate('A long story', {
    maxTokens: 400,
    minTokens: 400,
    temperature: 1,
    n: 4,
    seed: 2,
  });
  const ended = performance.now();
  clearInterval(timer);
  assert.equal(r.completions[0].tokens.length, 400);
  const during = ticks.filter((t) => t > started && t < ended);
  // A blocked event loop would fire at most once, after generation; it fired all along.
  assert.ok(
    during.length >= Math.min(10, (ended - started) / 50),
    `${during.length} ticks in ${Math.round(ended - started)} ms`,
  );
});

test('errors cross the worker boundary as ModelError with code and hint', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-empty-'));
  try {
    await assert.rejects(OnnxBackend.load({ modelDir: dir }), (e: unknown) => {
      assert.ok(e instanceof ModelError);
      assert.equal(e.code, 'model-folder');
      assert.match(e.message, /tokenizer\.json/);
      assert.ok(e.hint);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a load that exceeds its timeout fails with a load error', async () => {
  await assert.rejects(OnnxBackend.load({ modelDir: tinyModelDir(), loadTimeoutMs: 1 }), (e: unknown) => {
    assert.ok(e instanceof ModelError);
    assert.equal(e.code, 'load');
    assert.match(e.message, /did not load within/);
    return true;
  });
});

test('after dispose, calls fail with a clear error instead of hanging', async () => {
  const other = await OnnxBackend.load({ modelDir: tinyModelDir(), variant: 'q4', device: 'cpu' });
  const r = await other.generate('q4 works', { maxTokens: 3, temperature: 0 });
  assert.equal(r.completions[0].tokens.length, 3);
  await other.dispose();
  await assert.rejects(other.generate('x'), { code: 'load' });
});
