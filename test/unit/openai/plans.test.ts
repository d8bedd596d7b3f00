/**
 * Generation plans over an OpenAI-compatible endpoint, against a real llama.cpp server
 * (llama-cpp-python serving SmolLM2). Servers with less support are the same server behind a
 * node:http peer that takes away what they lack (grammars, log-probabilities), or adds what
 * llama.cpp and vLLM say about their context window.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { AssertionAutomaton } from '../../../src/core/model/assertionLines';
import { builtTestModelDir } from '../../testModel';
import { OnnxEngine } from '../../../src/core/model/onnx/engine';
import { OpenAIBackend } from '../../../src/core/model/openai';
import { segmentNamed, type PlanSegment } from '../../../src/core/model/plan';
import { ModelError } from '../../../src/core/model/types';
import { startHttpServer, type TestHttpServer } from '../../servers/http-server';
import {
  llamaServerUnavailable,
  repoRoot,
  startLlamaServer,
  type LlamaServer,
} from '../../servers/llama-server';
import { tinyModelDir } from '../model/tinyModel';

const unavailable = llamaServerUnavailable();
if (unavailable) console.log(`# endpoint plan tests skipped: ${unavailable}`);

const provePlan: PlanSegment[] = [
  { kind: 'text', text: '## Solution\n' },
  { kind: 'free', name: 'solution', maxTokens: 24, stop: ['## Self Evaluation'] },
  { kind: 'text', text: '\n\n## Self Evaluation\n\nHere is my evaluation of the solution:' },
  { kind: 'free', name: 'evaluation', maxTokens: 16, stop: ['\\boxed'] },
  { kind: 'text', text: '\n\nThe final overall score should be: \\boxed{' },
  { kind: 'choice', name: 'score', options: ['0', '0.5', '1'] },
  { kind: 'text', text: '}' },
];
const prove = [{ role: 'user' as const, content: 'Prove that the sum of two even integers is even.' }];
const testsPlan: PlanSegment[] = [
  { kind: 'text', text: '```python\n' },
  {
    kind: 'assertions',
    name: 'tests',
    language: 'python',
    functionName: 'add',
    maxLines: 4,
    maxTokensPerLine: 40,
  },
];
const testsPrompt = [
  {
    role: 'user' as const,
    content:
      'Write Python assert statements that test this function.\n\ndef add(a, b):\n    """Add two numbers."""\n    return a + b',
  },
];

/** SmolLM2's tokenizer folder: the tiny test model is built with the same tokenizer and chat template. */
const tokenizerDir = () => tinyModelDir();

function assertProveShape(text: string, distribution: { option: string; probability: number }[]) {
  assert.match(
    text,
    /^## Solution\n[\s\S]*\n\n## Self Evaluation\n\nHere is my evaluation[\s\S]*\\boxed\{(0|0\.5|1)\}$/,
  );
  assert.deepEqual(
    distribution.map((d) => d.option),
    ['0', '0.5', '1'],
  );
  assert.ok(Math.abs(distribution.reduce((s, d) => s + d.probability, 0) - 1) < 1e-9);
}

function assertValidAssertions(lines: string[]) {
  const python = join(repoRoot(), '.venv', 'bin', 'python');
  const check = new AssertionAutomaton({ language: 'python', functionName: 'add', maxLines: 4 });
  assert.equal(new Set(lines).size, lines.length, 'no line repeats');
  for (const line of lines) {
    assert.equal(check.feed(`${line}\n`), 'ok', line);
    const parsed = spawnSync(python, ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: line });
    assert.equal(parsed.status, 0, `Python does not parse: ${line}`);
  }
}

/** A peer in front of the llama server: `editBody` changes each POST body, `answer` may take a request over. */
async function peer(
  llama: LlamaServer,
  editBody: (body: Record<string, unknown>) => Record<string, unknown>,
  answer?: (path: string) => unknown,
): Promise<TestHttpServer> {
  return startHttpServer(async (req, res) => {
    const own = answer?.(req.path);
    if (own !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(own));
      return;
    }
    const init: RequestInit = { method: req.method, headers: { 'content-type': 'application/json' } };
    if (req.method === 'POST')
      init.body = JSON.stringify(editBody(JSON.parse(req.body) as Record<string, unknown>));
    const upstream = await fetch(`${llama.origin}${req.path}`, init);
    res.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    });
    res.end(await upstream.text());
  });
}

const withoutGrammar = ({
  grammar: _g,
  structured_outputs: _s,
  guided_grammar: _gg,
  ...rest
}: Record<string, unknown>) => rest;
const withoutLogprobs = (body: Record<string, unknown>) => {
  const { logprobs: _l, top_logprobs: _t, ...rest } = withoutGrammar(body);
  return rest;
};

describe('generation plans on a real llama.cpp server', { skip: unavailable }, () => {
  let llama: LlamaServer;
  const peers: TestHttpServer[] = [];

  before(async () => {
    llama = await startLlamaServer();
  });
  after(async () => {
    for (const p of peers) await p.close();
    await llama?.stop();
  });

  test('with its grammar: the Prove plan always has both sections and a score distribution', async () => {
    const backend = await OpenAIBackend.connect({
      baseUrl: llama.origin,
      model: llama.model,
      contextWindow: 2048,
      tokenizerDir: tokenizerDir(),
    });
    assert.deepEqual(await backend.planSupport(), { mode: 'server-grammar', assertionGrammar: 'lines' });
    const r = await backend.generatePlan(prove, provePlan, { temperature: 0 });
    assert.equal(r.mode, 'server-grammar');
    const c = r.completions[0];
    assertProveShape(c.text, segmentNamed(c, 'score')!.distribution!);
    assert.equal(c.segments.map((s) => s.text).join(''), c.text);
    assert.ok(segmentNamed(c, 'solution')!.text.length > 0);
  });

  test('with its grammar: assertion lines are one valid, distinct assertion each', async () => {
    const backend = await OpenAIBackend.connect({
      baseUrl: llama.origin,
      model: llama.model,
      contextWindow: 2048,
      tokenizerDir: tokenizerDir(),
    });
    const r = await backend.generatePlan(testsPrompt, testsPlan, { temperature: 0 });
    const lines = r.completions[0].segments[1].lines!;
    assert.ok(lines.length >= 1, 'at least one assertion');
    assertValidAssertions(lines);
  });

  test('the assertion grammar: the line grammar on llama-cpp-python, the expression grammar where /props answers or when asked', async () => {
    const sent: string[] = [];
    const chosen: (string | undefined)[] = [];
    const record = (b: Record<string, unknown>) => {
      if (typeof b.grammar === 'string' && b.grammar.includes('assert')) sent.push(b.grammar);
      return b;
    };
    const plain = await peer(llama, record);
    const llamaCpp = await peer(llama, record, (path) =>
      path === '/props' ? { default_generation_settings: { n_ctx: 2048 } } : undefined,
    );
    peers.push(plain, llamaCpp);
    const run = async (origin: string, assertionGrammar?: 'expressions' | 'lines') => {
      const backend = await OpenAIBackend.connect({
        baseUrl: origin,
        model: llama.model,
        contextWindow: 2048,
        tokenizerDir: tokenizerDir(),
        assertionGrammar,
        // The expression grammar is slow on llama-cpp-python (what the line grammar is for).
        timeoutMs: 120_000,
      });
      const r = await backend.generatePlan(testsPrompt, testsPlan, { temperature: 0 });
      assertValidAssertions(r.completions[0].segments[1].lines!);
      const support = await backend.planSupport();
      chosen.push(support.mode === 'server-grammar' ? support.assertionGrammar : undefined);
      return sent.pop()!;
    };
    const lineGrammar =
      /^root ::= \(line "\\n"\)\{1,4\} "\\n"\?\nline ::= "assert " \("not "\)\? "add" "\(" \[\^\\n\]\+\n$/;
    assert.match(await run(plain.origin), lineGrammar);
    const expressions = await run(llamaCpp.origin);
    assert.match(expressions, /^expr ::= /m, 'the expression rules go to llama.cpp');
    assert.match(await run(plain.origin, 'expressions'), /^expr ::= /m);
    assert.match(await run(llamaCpp.origin, 'lines'), lineGrammar);
    assert.equal(sent.length, 0);
    // What the run reports (the tests panel and CLI say which grammar held the lines).
    assert.deepEqual(chosen, ['lines', 'expressions', 'expressions', 'lines']);

    // JavaScript's line grammar is one llama.cpp accepts, and what comes back is checked as JavaScript.
    const js = await OpenAIBackend.connect({
      baseUrl: plain.origin,
      model: llama.model,
      contextWindow: 2048,
      tokenizerDir: tokenizerDir(),
    });
    const jsPlan: PlanSegment[] = [
      { kind: 'text', text: '```js\n' },
      {
        kind: 'assertions',
        name: 'tests',
        language: 'javascript',
        functionName: 'add',
        maxLines: 2,
        maxTokensPerLine: 40,
      },
    ];
    const r = await js.generatePlan(testsPrompt, jsPlan, { temperature: 0 });
    assert.match(
      sent.pop()!,
      /^line ::= "assert\." \("deepStrictEqual" \| "strictEqual"\) "\(" "add" "\(" /m,
    );
    const check = new AssertionAutomaton({ language: 'javascript', functionName: 'add', maxLines: 2 });
    for (const line of r.completions[0].segments[1].lines!) assert.equal(check.feed(`${line}\n`), 'ok', line);
  });

  test('cancelling a plan rejects with "aborted" between tokens, and the backend serves the next call', async () => {
    const backend = await OpenAIBackend.connect({
      baseUrl: llama.origin,
      model: llama.model,
      contextWindow: 2048,
      tokenizerDir: tokenizerDir(),
    });
    const controller = new AbortController();
    const seen: number[] = [];
    const run = backend.generatePlan(prove, provePlan, {
      temperature: 0,
      signal: controller.signal,
      onToken: (e) => {
        seen.push(e.segment!);
        if (e.segment === 1) controller.abort();
      },
    });
    await assert.rejects(run, (e: unknown) => e instanceof ModelError && e.code === 'aborted');
    assert.ok(!seen.includes(2), 'nothing after the cancelled segment');
    const r = await backend.generatePlan('x', [{ kind: 'text', text: 'ok' }]);
    assert.equal(r.completions[0].text, 'ok');
  });

  test(
    'the score distribution agrees with the same model run locally',
    {
      skip: !builtTestModelDir() && 'the test model is not built',
    },
    async () => {
      const plan: PlanSegment[] = [
        { kind: 'text', text: 'Score: \\boxed{' },
        { kind: 'choice', name: 'score', options: ['0', '0.5', '1'] },
        { kind: 'text', text: '}' },
      ];
      const backend = await OpenAIBackend.connect({
        baseUrl: llama.origin,
        model: llama.model,
        contextWindow: 2048,
      });
      const remote = (await backend.generatePlan('Rate the proof that 1+1=2.\n', plan, { temperature: 0 }))
        .completions[0];
      const engine = await OnnxEngine.load({
        modelDir: builtTestModelDir()!,
        variant: 'fp32',
        device: 'cpu',
        threads: 2,
      });
      try {
        const local = (await engine.generatePlan('Rate the proof that 1+1=2.\n', plan, { temperature: 0 }))
          .completions[0];
        const a = segmentNamed(remote, 'score')!.distribution!;
        const b = segmentNamed(local, 'score')!.distribution!;
        // The server runs a 4-bit quantisation of the same weights.
        a.forEach((d, k) =>
          assert.ok(
            Math.abs(d.probability - b[k].probability) < 0.1,
            `${d.option}: ${d.probability} vs ${b[k].probability}`,
          ),
        );
      } finally {
        await engine.dispose();
      }
    },
  );

  test('a raw prompt needs no chat template; chat messages without one get a reason that says what to set', async () => {
    const backend = await OpenAIBackend.connect({
      baseUrl: llama.origin,
      model: llama.model,
      contextWindow: 2048,
    });
    const support = await backend.planSupport();
    assert.equal(support.mode, 'none');
    assert.match((support as { reason: string }).reason, /chat template[\s\S]*--tokenizer DIR/);
    await assert.rejects(
      backend.generatePlan(prove, provePlan),
      (e: unknown) => e instanceof ModelError && e.code === 'endpoint-unsupported',
    );
    const r = await backend.generatePlan('Prove that 2 is even.\n', provePlan, { temperature: 0 });
    assertProveShape(r.completions[0].text, segmentNamed(r.completions[0], 'score')!.distribution!);
  });

  test('a server without grammars: the plan runs by prefix continuation, assertion lines filtered', async () => {
    const p = await peer(llama, withoutGrammar);
    peers.push(p);
    const backend = await OpenAIBackend.connect({
      baseUrl: p.origin,
      model: llama.model,
      contextWindow: 2048,
      tokenizerDir: tokenizerDir(),
    });
    assert.deepEqual(await backend.planSupport(), { mode: 'prefix-continuation' });
    const r = await backend.generatePlan(prove, provePlan, { temperature: 0 });
    assert.equal(r.mode, 'prefix-continuation');
    assertProveShape(r.completions[0].text, segmentNamed(r.completions[0], 'score')!.distribution!);
    const tests = await backend.generatePlan(testsPrompt, testsPlan, { temperature: 0 });
    assertValidAssertions(tests.completions[0].segments[1].lines!);
  });

  test('a server without grammars or log-probabilities: planSupport says why, generatePlan refuses with it', async () => {
    const p = await peer(llama, withoutLogprobs);
    peers.push(p);
    const backend = await OpenAIBackend.connect({
      baseUrl: p.origin,
      model: llama.model,
      contextWindow: 2048,
      tokenizerDir: tokenizerDir(),
    });
    const support = await backend.planSupport();
    assert.equal(support.mode, 'none');
    assert.match((support as { reason: string }).reason, /no top log-probabilities/);
    await assert.rejects(
      backend.generatePlan(prove, provePlan),
      (e: unknown) =>
        e instanceof ModelError &&
        e.code === 'endpoint-unsupported' &&
        /log-probabilities/.test(e.hint ?? ''),
    );
    // Free generation still works: callers fall back to it.
    const free = await backend.generate(prove, { maxTokens: 8, temperature: 0 });
    assert.ok(free.completions[0].text.length > 0);
  });

  test('the context window comes from the server where it says, else from the user, else 2048 with a warning', async () => {
    const llamaCpp = await peer(
      llama,
      (b) => b,
      (path) => (path === '/props' ? { default_generation_settings: { n_ctx: 4096 } } : undefined),
    );
    const vllm = await peer(
      llama,
      (b) => b,
      (path) => (path === '/v1/models' ? { data: [{ id: llama.model, max_model_len: 3072 }] } : undefined),
    );
    peers.push(llamaCpp, vllm);
    const warnings: string[] = [];
    const onWarning = (w: string) => warnings.push(w);
    assert.equal(
      (await OpenAIBackend.connect({ baseUrl: llamaCpp.origin, model: llama.model, onWarning })).info
        .contextWindow,
      4096,
    );
    assert.equal(
      (await OpenAIBackend.connect({ baseUrl: vllm.origin, model: llama.model, onWarning })).info
        .contextWindow,
      3072,
    );
    assert.deepEqual(warnings, []);
    assert.equal(
      (
        await OpenAIBackend.connect({
          baseUrl: llama.origin,
          model: llama.model,
          contextWindow: 1024,
          onWarning,
        })
      ).info.contextWindow,
      1024,
    );
    assert.deepEqual(warnings, []);
    const plain = await OpenAIBackend.connect({ baseUrl: llama.origin, model: llama.model, onWarning });
    assert.equal(plain.info.contextWindow, 2048);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /does not say[\s\S]*assuming 2048[\s\S]*--context-window/);
  });
});
