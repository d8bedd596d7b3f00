/**
 * Generation plans on the tiny random-weight model: whatever the weights, the output has the
 * planned shape, choices only take their options with the probabilities score() gives, assertion
 * lines obey the grammar, and rewinding the cache leaves it exactly as a fresh pass would.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AssertionAutomaton } from '../../../src/core/model/assertionLines';
import { OnnxBackend } from '../../../src/core/model/onnx/index';
import { OnnxEngine } from '../../../src/core/model/onnx/engine';
import { OwnCacheLane, PlanCursor } from '../../../src/core/model/onnx/planCursor';
import type { PlanSegment } from '../../../src/core/model/plan';
import { RepetitionHistory, repetitionSettings } from '../../../src/core/model/repetition';
import type { TokenEvent } from '../../../src/core/model/types';
import { tinyModelDir } from './tinyModel';

let engine: OnnxEngine;
let backend: OnnxBackend;

before(async () => {
  engine = await OnnxEngine.load({ modelDir: tinyModelDir(), variant: 'fp32', device: 'cpu', threads: 1 });
  backend = await OnnxBackend.load({ modelDir: tinyModelDir(), variant: 'fp32', device: 'cpu', threads: 1 });
});
after(async () => {
  await engine?.dispose();
  await backend?.dispose();
});

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};

const provePlan: PlanSegment[] = [
  { kind: 'text', text: '## Solution\n' },
  { kind: 'free', name: 'proof', maxTokens: 20, stop: ['##'] },
  { kind: 'text', text: '\n\n## Self Evaluation\nHere is my evaluation of the solution:' },
  { kind: 'free', name: 'evaluation', maxTokens: 12 },
  { kind: 'text', text: '\n\\boxed{' },
  { kind: 'choice', name: 'score', options: ['0', '0.5', '1'] },
  { kind: 'text', text: '}' },
];

test('the forced text comes out exactly, in order, around the free and chosen parts', async () => {
  for (const temperature of [0, 1]) {
    const r = await engine.generatePlan('Prove that 2 is even.\n', provePlan, { temperature, seed: 5, n: 2 });
    assert.equal(r.completions.length, 2);
    for (const c of r.completions) {
      assert.equal(c.segments.map((s) => s.text).join(''), c.text);
      provePlan.forEach((p, i) => {
        assert.equal(c.segments[i].kind, p.kind);
        if (p.kind === 'text') assert.equal(c.segments[i].text, p.text);
      });
      assert.ok(!c.segments[1].text.includes('##'), 'the stop string is not kept');
      assert.ok(['0', '0.5', '1'].includes(c.segments[5].text));
      assert.ok(c.tokenCount > 0);
    }
  }
});

test('a choice gives every option its probability as score() does, summing to 1', async () => {
  const prompt = 'Rate the proof.\n';
  const before = 'Score: \\boxed{';
  const options = ['0', '0.5', '1', '10'];
  const r = await engine.generatePlan(
    prompt,
    [
      { kind: 'text', text: before },
      { kind: 'choice', name: 'score', options },
      { kind: 'text', text: '}' },
    ],
    { temperature: 0 },
  );
  const dist = r.completions[0].segments[1].distribution!;
  assert.deepEqual(
    dist.map((d) => d.option),
    options,
  );
  assert.ok(Math.abs(dist.reduce((s, d) => s + d.probability, 0) - 1) < 1e-9);
  // "1" and "10" share a start, so each option is scored with the "}" that follows it.
  const scores = await Promise.all(options.map((o) => engine.score(prompt + before, `${o}}`)));
  const total = scores.reduce((s, x) => s + Math.exp(x.totalLogprob), 0);
  options.forEach((o, k) => {
    const expected = Math.exp(scores[k].totalLogprob) / total;
    assert.ok(Math.abs(dist[k].probability - expected) < 1e-4, `${o}: ${dist[k].probability} vs ${expected}`);
  });
  const best = dist.reduce((a, b) => (b.probability > a.probability ? b : a));
  assert.equal(r.completions[0].segments[1].text, best.option, 'greedy takes the most probable option');
  assert.ok(r.completions[0].segments[1].optionMass! > 0 && r.completions[0].segments[1].optionMass! <= 1);
});

test('a space before a choice is scored with the options, and sampling draws every option over many rows', async () => {
  const options = ['yes', 'no'];
  const plan: PlanSegment[] = [
    { kind: 'text', text: 'Answer: ' },
    { kind: 'choice', name: 'answer', options },
  ];
  const r = await engine.generatePlan('Is 7 prime?\n', plan, { temperature: 1, seed: 1, n: 24 });
  const dist = r.completions[0].segments[1].distribution!;
  const scores = await Promise.all(options.map((o) => engine.score('Is 7 prime?\nAnswer:', ` ${o}`)));
  const total = scores.reduce((s, x) => s + Math.exp(x.totalLogprob), 0);
  assert.ok(Math.abs(dist[0].probability - Math.exp(scores[0].totalLogprob) / total) < 1e-4);
  for (const c of r.completions) assert.equal(c.text, `Answer: ${c.segments[1].text}`);
  const drawn = new Set(r.completions.map((c) => c.segments[1].text));
  if (Math.min(dist[0].probability, dist[1].probability) > 0.2) assert.equal(drawn.size, 2);
});

test('assertion lines obey the grammar whatever the weights, and the run stays within its budgets', async () => {
  const segment = {
    kind: 'assertions' as const,
    name: 'tests',
    language: 'python' as const,
    functionName: 'add',
    maxLines: 4,
    maxTokensPerLine: 48,
  };
  for (const seed of [1, 2, 3]) {
    const r = await engine.generatePlan('def add(a, b):\n    return a + b\n\n', [segment], {
      temperature: 1,
      seed,
    });
    const s = r.completions[0].segments[0];
    assert.ok(s.lines!.length <= 4);
    // Every admitted line is accepted again by a fresh automaton, and the text is exactly the lines.
    const check = new AssertionAutomaton(segment);
    for (const line of s.lines!) {
      assert.ok(line.startsWith('assert add(') || line.startsWith('assert not add('), line);
      assert.equal(check.feed(`${line}\n`), 'ok', line);
    }
    // The text is the admitted lines, each perhaps followed by a comment that is not part of it.
    const written = s.text.split('\n');
    s.lines!.forEach((line, i) => {
      assert.ok(written[i].startsWith(line), `${written[i]} / ${line}`);
      assert.match(written[i].slice(line.length), /^(\s*#.*)?$/);
    });
    assert.ok(r.completions[0].tokenCount <= 4 * 48 + 48 * 2, `${r.completions[0].tokenCount} tokens`);
  }
});

test('rewinding the cache leaves the same logits as a fresh pass over the same tokens', async () => {
  const prompt = engine.codec.encodeInput('Once upon a time, a proof by induction');
  const full = await engine.fullLogits(prompt);
  const prefill = await engine.session.forward({
    ids: prompt.slice(0, 4),
    batch: 1,
    seq: 4,
    mask: [1, 1, 1, 1],
    positions: [0, 1, 2, 3],
    past: undefined,
  });
  const cursor = new PlanCursor(
    {
      encode: (t) => engine.codec.encodeContinuation(t),
      contextWindow: 2048,
      modelName: 'tiny',
      isAborted: () => false,
    },
    4,
    prompt.slice(0, 4),
    new OwnCacheLane(engine.session, prefill.present),
    prefill.logits.slice(3 * prefill.vocab),
    new RepetitionHistory(repetitionSettings()),
  );
  for (const id of prompt.slice(4)) cursor.queueToken(id);
  await cursor.logits();
  cursor.queueText(' and then some more words');
  await cursor.logits();
  cursor.rewind(prompt.length - 2);
  for (const id of prompt.slice(prompt.length - 2)) cursor.queueToken(id);
  const after = await cursor.logits();
  assert.deepEqual(cursor.ids, prompt);
  assert.ok(maxAbsDiff(after, full.rows[prompt.length - 1]) < 1e-4);
});

test('through the worker: events stream every piece of text in order, and n rows each follow the plan', async () => {
  const events: TokenEvent[] = [];
  const r = await backend.generatePlan('Prove that 2 is even.\n', provePlan, {
    temperature: 0.8,
    seed: 9,
    n: 2,
    onToken: (e) => events.push(e),
  });
  assert.equal(r.mode, 'native');
  assert.deepEqual(await backend.planSupport(), { mode: 'native' });
  for (let s = 0; s < 2; s++) {
    const mine = events.filter((e) => e.sequence === s);
    assert.equal(mine.map((e) => e.text).join(''), r.completions[s].text);
    assert.ok(mine.every((e, k) => k === 0 || e.segment! >= mine[k - 1].segment!));
  }
  const again = await backend.generatePlan('Prove that 2 is even.\n', provePlan, {
    temperature: 0.8,
    seed: 9,
    n: 2,
  });
  assert.deepEqual(
    again.completions.map((c) => c.text),
    r.completions.map((c) => c.text),
    'the same seed gives the same rows',
  );
});

test('through the worker: cancelling rejects with "aborted" and the worker serves the next call', async () => {
  const controller = new AbortController();
  let seen = 0;
  const run = backend.generatePlan('x', [{ kind: 'free', name: 'a', maxTokens: 200 }], {
    signal: controller.signal,
    onToken: () => {
      if (++seen === 3) controller.abort();
    },
  });
  await assert.rejects(run, { code: 'aborted' });
  const r = await backend.generatePlan('x', [{ kind: 'text', text: 'ok' }]);
  assert.equal(r.completions[0].text, 'ok');
});

test('a malformed plan is refused with a reason', async () => {
  await assert.rejects(
    engine.generatePlan('x', [{ kind: 'choice', name: 'c', options: [] }]),
    /without options/,
  );
  await assert.rejects(engine.generatePlan('x', []), /empty/);
});
