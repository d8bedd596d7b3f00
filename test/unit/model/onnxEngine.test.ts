import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tokenLogprob } from '../../../src/core/model/sampling';
import { OnnxEngine, positionsOf } from '../../../src/core/model/onnx/engine';
import { ModelError } from '../../../src/core/model/types';
import { tinyModelDir } from './tinyModel';

let engine: OnnxEngine;
const scratch: string[] = [];

before(async () => {
  engine = await OnnxEngine.load({ modelDir: tinyModelDir(), variant: 'fp32', device: 'cpu', threads: 1 });
});
after(async () => {
  await engine?.dispose();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};

test('logits with the KV cache equal a full forward pass without it (within 1e-4)', async () => {
  const ids = engine.codec.encodeInput('Once upon a time, a proof by induction');
  const full = await engine.fullLogits(ids);
  const split = 4;
  const mask = ids.slice(0, split).map(() => 1);
  let out = await engine.session.forward({
    ids: ids.slice(0, split),
    batch: 1,
    seq: split,
    mask,
    positions: positionsOf(mask),
    past: undefined,
  });
  for (let i = split; i < ids.length; i++) {
    mask.push(1);
    out = await engine.session.forward({
      ids: [ids[i]],
      batch: 1,
      seq: 1,
      mask,
      positions: [i],
      past: out.present,
    });
    const diff = maxAbsDiff(out.logits, full.rows[i]);
    assert.ok(diff < 1e-4, `position ${i}: cached and uncached logits differ by ${diff}`);
  }
});

test('seeded sampling repeats its text exactly; different seeds give different samples', async () => {
  const opts = { maxTokens: 12, temperature: 1, topP: 0.95, topK: 200 };
  const a = await engine.generate('The sum of two even numbers', { ...opts, seed: 42 });
  const b = await engine.generate('The sum of two even numbers', { ...opts, seed: 42 });
  const c = await engine.generate('The sum of two even numbers', { ...opts, seed: 43 });
  // The repeat reads its prompt from the first call's cache: the same tokens, and logprobs equal
  // up to the rounding of a one-token pass against a whole-prompt one.
  assert.equal(b.cachedPromptTokens, b.promptTokens - 1);
  assert.equal(b.completions[0].text, a.completions[0].text);
  assert.deepEqual(
    b.completions[0].tokens.map((t) => [t.id, t.text]),
    a.completions[0].tokens.map((t) => [t.id, t.text]),
  );
  b.completions[0].tokens.forEach((t, i) =>
    assert.ok(Math.abs(t.logprob! - a.completions[0].tokens[i].logprob!) < 1e-5, `logprob ${i}`),
  );
  assert.notDeepEqual(
    a.completions[0].tokens.map((t) => t.id),
    c.completions[0].tokens.map((t) => t.id),
  );
});

test('n samples come back as n different sequences from one batch', async () => {
  const r = await engine.generate('Let x be', { maxTokens: 8, temperature: 1, n: 4, seed: 1 });
  assert.equal(r.completions.length, 4);
  assert.equal(new Set(r.completions.map((c) => c.text)).size, 4);
  for (const c of r.completions) assert.equal(c.tokens.length, 8);
});

test('per-token logprobs are those of a full forward pass over the unwarped distribution', async () => {
  const prompt = engine.codec.encodeInput('Proof. Suppose');
  const r = await engine.generate('Proof. Suppose', { maxTokens: 10, temperature: 0.7, topK: 50, seed: 9 });
  const tokens = r.completions[0].tokens;
  const full = await engine.fullLogits([...prompt, ...tokens.map((t) => t.id!)]);
  tokens.forEach((t, j) => {
    const expected = tokenLogprob(full.rows[prompt.length - 1 + j], t.id!);
    assert.ok(Math.abs((t.logprob as number) - expected) < 1e-4, `token ${j}: ${t.logprob} vs ${expected}`);
  });
  const scored = await engine.score('Proof. Suppose', r.completions[0].text);
  assert.ok(scored.tokens.length > 0);
  const direct = await engine.fullLogits([...prompt, ...scored.tokens.map((t) => t.id!)]);
  scored.tokens.forEach((t, j) => {
    assert.ok(
      Math.abs((t.logprob as number) - tokenLogprob(direct.rows[prompt.length - 1 + j], t.id!)) < 1e-6,
    );
  });
  assert.ok(
    Math.abs(scored.totalLogprob - scored.tokens.reduce((s, t) => s + (t.logprob as number), 0)) < 1e-9,
  );
});

test('a left-padded batch gives the same greedy tokens and logprobs as each prompt alone', async () => {
  const prompts = ['Hi', 'Therefore the induction step holds for every n', 'def f(x):'].map((p) =>
    engine.codec.encodeInput(p),
  );
  const batched = await engine.generateBatch(prompts, { maxTokens: 6, temperature: 0 });
  for (let b = 0; b < prompts.length; b++) {
    const alone = await engine.generateBatch([prompts[b]], { maxTokens: 6, temperature: 0 });
    const got = batched.completions[b].tokens;
    const want = alone.completions[0].tokens;
    assert.deepEqual(
      got.map((t) => t.id),
      want.map((t) => t.id),
    );
    got.forEach((t, j) => assert.ok(Math.abs((t.logprob as number) - (want[j].logprob as number)) < 1e-4));
  }
});

test('a stop sequence ends generation with the text before it, and streaming agrees', async () => {
  const opts = { maxTokens: 16, temperature: 1, seed: 5 };
  const free = await engine.generate('Once', opts);
  const words = free.completions[0].tokens.map((t) => t.text);
  const stop = words[5] + words[6];
  const expected = free.completions[0].text.slice(0, free.completions[0].text.indexOf(stop));
  let streamed = '';
  const cut = await engine.generate(
    'Once',
    { ...opts, stop: [stop] },
    { onToken: (e) => (streamed += e.text) },
  );
  assert.equal(cut.completions[0].finishReason, 'stop');
  assert.equal(cut.completions[0].text, expected);
  assert.equal(streamed, expected);
});

test('maxTokens bounds the length and the finish reason says so', async () => {
  const r = await engine.generate('x', { maxTokens: 5, minTokens: 5, temperature: 0 });
  assert.equal(r.completions[0].tokens.length, 5);
  assert.equal(r.completions[0].finishReason, 'length');
});

test('an aborted generation stops before the next forward pass', async () => {
  let calls = 0;
  const r = await engine.generate('x', { maxTokens: 50, temperature: 0 }, { isAborted: () => ++calls > 3 });
  assert.equal(r.completions[0].finishReason, 'abort');
  assert.equal(r.completions[0].tokens.length, 3);
});

function copyFolder(edit: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-model-'));
  scratch.push(dir);
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
    copyFileSync(join(tinyModelDir(), f), join(dir, f));
  symlinkSync(join(tinyModelDir(), 'onnx'), join(dir, 'onnx'));
  edit(dir);
  return dir;
}

test('a folder missing files fails with model-folder naming each missing file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-model-'));
  scratch.push(dir);
  copyFileSync(join(tinyModelDir(), 'config.json'), join(dir, 'config.json'));
  await assert.rejects(OnnxEngine.load({ modelDir: dir, device: 'cpu' }), (e: ModelError) => {
    assert.equal(e.code, 'model-folder');
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'])
      assert.ok(e.message.includes(f), e.message);
    assert.ok(e.hint);
    return true;
  });
  await assert.rejects(OnnxEngine.load({ modelDir: join(dir, 'nope'), device: 'cpu' }), {
    code: 'model-folder',
  });
});

test('a config.json that does not fit the graph fails with model-shape', async () => {
  const setConfig = (change: Record<string, unknown>) => (dir: string) => {
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, ...change }));
  };
  await assert.rejects(
    OnnxEngine.load({ modelDir: copyFolder(setConfig({ num_hidden_layers: 3 })), device: 'cpu' }),
    (e: ModelError) => {
      assert.equal(e.code, 'model-shape');
      assert.match(e.message, /3 layers.*2/);
      return true;
    },
  );
  await assert.rejects(
    OnnxEngine.load({ modelDir: copyFolder(setConfig({ head_dim: 32 })), device: 'cpu' }),
    { code: 'model-shape' },
  );
  await assert.rejects(
    OnnxEngine.load({ modelDir: copyFolder(setConfig({ num_key_value_heads: 4 })), device: 'cpu' }),
    { code: 'model-shape' },
  );
});

test('a prompt longer than the context window is refused, not cut', async () => {
  const long = 'word '.repeat(engine.info.contextWindow + 10);
  await assert.rejects(engine.generate(long, { maxTokens: 1 }), { code: 'context-overflow' });
});
