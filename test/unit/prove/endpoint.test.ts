/**
 * Prove against a real llama.cpp server (llama-cpp-python serving SmolLM2): constrained through
 * the server's grammar, and, behind a peer that takes away grammars and log-probabilities, the
 * clear fallback to free generation with the reason in the run.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAIBackend } from '../../../src/core/model/openai';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { parseProveRun } from '../../../src/core/prove/runSchema';
import { startHttpServer, type TestHttpServer } from '../../servers/http-server';
import { llamaServerUnavailable, startLlamaServer, type LlamaServer } from '../../servers/llama-server';
import { tinyModelDir } from '../model/tinyModel';

const unavailable = llamaServerUnavailable();
if (unavailable) console.log(`# endpoint prove tests skipped: ${unavailable}`);

const PROBLEM = 'What is 2 + 3?\nAnswer: 5';
const OPTIONS = {
  maxIterations: 1,
  maxTokens: 24,
  selfEvalMaxTokens: 16,
  verifierMaxTokens: 16,
  stepScores: false,
  metaVerify: false,
  temperature: 0,
};

/** The llama server without what constrained decoding needs: grammars and log-probabilities. */
function withoutConstraints(llama: LlamaServer): Promise<TestHttpServer> {
  return startHttpServer(async (req, res) => {
    const init: RequestInit = { method: req.method, headers: { 'content-type': 'application/json' } };
    if (req.method === 'POST') {
      const body = JSON.parse(req.body) as Record<string, unknown>;
      for (const k of ['grammar', 'structured_outputs', 'guided_grammar', 'logprobs', 'top_logprobs'])
        delete body[k];
      init.body = JSON.stringify(body);
    }
    const upstream = await fetch(`${llama.origin}${req.path}`, init);
    res.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    });
    res.end(await upstream.text());
  });
}

describe('Prove on a real llama.cpp server', { skip: unavailable }, () => {
  let llama: LlamaServer;
  let peer: TestHttpServer | undefined;
  before(async () => {
    llama = await startLlamaServer();
  });
  after(async () => {
    await peer?.close();
    await llama?.stop();
  });

  test('constrained through the server: both sections, a boxed answer and score distributions', async () => {
    const backend = await OpenAIBackend.connect({
      baseUrl: llama.origin,
      model: llama.model,
      contextWindow: 2048,
      tokenizerDir: tinyModelDir(),
    });
    const run = await proveAndVerify({ problem: PROBLEM, options: OPTIONS }, { generator: backend });
    assert.equal(run.status, 'completed', run.error?.message);
    assert.ok('run' in parseProveRun(JSON.parse(JSON.stringify(run))));
    assert.equal(run.generation.generator.mode, 'constrained');
    assert.equal(run.generation.generator.planMode, 'server-grammar');
    const c = run.iterations[0].candidates[0];
    assert.equal(c.constrained, true);
    assert.match(c.raw, /^## Solution\n[\s\S]*Final answer: \$\\boxed\{[\s\S]*\n\n## Self Evaluation\n/);
    assert.deepEqual(
      c.selfScoreDistribution?.options.map((o) => o.option),
      ['0', '0.5', '1'],
    );
    assert.ok(c.answerCheck && typeof c.answerCheck.matches === 'boolean');
    assert.equal(c.verifier?.passes[0].constrained, true);
  });

  test('a server without grammars or log-probabilities: free generation, with the reason in the run', async () => {
    peer = await withoutConstraints(llama);
    const backend = await OpenAIBackend.connect({
      baseUrl: peer.origin,
      model: llama.model,
      contextWindow: 2048,
      tokenizerDir: tinyModelDir(),
    });
    const run = await proveAndVerify({ problem: PROBLEM, options: OPTIONS }, { generator: backend });
    assert.equal(run.status, 'completed', run.error?.message);
    assert.equal(run.generation.generator.mode, 'free');
    assert.match(run.generation.generator.fallbackReason ?? '', /log-probabilities/);
    assert.equal(run.iterations[0].candidates[0].constrained, false);
  });
});
