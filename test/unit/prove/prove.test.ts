import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proveAndVerify } from '../../../src/core/prove/prove';
import type { ProveEvent } from '../../../src/core/prove/events';
import { ProveRunSchema } from '../../../src/core/prove/runSchema';
import type { StepScorer } from '../../../src/core/model/stepScorer';
import { generatorOutput, judgeOutput, promptText, ScriptedBackend, type Script } from './scriptedBackend';

const PROBLEM = 'Prove that the sum of two even integers is even.';
const PROOF = 'Let a = 2m and b = 2n.\n\nThen a + b = 2(m + n), which is even.';

/** Routes each call by its prompt: generator/refine outputs from `proofs`, judges from `judge`. */
function router(
  proofs: (call: number) => string[],
  judge: (prompt: string) => string = () => judgeOutput('1'),
): Script {
  let generatorCalls = 0;
  return ({ input }) => {
    const text = promptText(input);
    if (text.includes('You are grading a proof') || text.includes('check the evaluation'))
      return [judge(text)];
    return proofs(generatorCalls++);
  };
}

const fixedScorer = (score: number): StepScorer => ({
  info: { kind: 'prm', name: 'fixed' },
  scoreSteps: async (_problem, steps) => steps.map(() => score),
});

test('refinement stops as soon as the chosen candidate self-scores 1', async () => {
  const outputs = [
    generatorOutput(PROOF, '0', 'Step 2 is unjustified.'),
    generatorOutput(PROOF, '0.5'),
    generatorOutput(PROOF, '1'),
  ];
  const backend = new ScriptedBackend(router((call) => [outputs[call]]));
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 5, stepScores: false } },
    { generator: backend },
  );
  assert.equal(run.status, 'completed');
  assert.equal(run.stopReason, 'self-score-1');
  assert.deepEqual(
    run.iterations.map((i) => i.candidates[i.chosen].parsed.selfScore),
    [0, 0.5, 1],
  );
  assert.deepEqual(run.final, { iteration: 2, candidate: 0 });
  // Each refinement feeds back the previous proof and the issues its self-evaluation named.
  assert.equal(run.iterations[1].kind, 'refine');
  assert.match(run.iterations[1].prompt, /Step 2 is unjustified\./);
  assert.deepEqual(run.iterations[1].refinedFrom, { iteration: 0, candidate: 0 });
  assert.equal(ProveRunSchema.safeParse(JSON.parse(JSON.stringify(run))).success, true);
});

test('refinement respects the iteration limit', async () => {
  const backend = new ScriptedBackend(router(() => [generatorOutput(PROOF, '0.5')]));
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 2, stepScores: false } },
    { generator: backend },
  );
  assert.equal(run.iterations.length, 2);
  assert.equal(run.stopReason, 'max-iterations');
  assert.equal(run.status, 'completed');
});

test('a malformed output has format reward 0, reward 0, and is refined', async () => {
  const outputs = ['I think it is even.', generatorOutput(PROOF, '1')];
  const backend = new ScriptedBackend(router((call) => [outputs[call]]));
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 3, stepScores: false } },
    { generator: backend },
  );
  const first = run.iterations[0].candidates[0];
  assert.equal(first.parsed.formatReward, 0);
  assert.equal(first.rewards.r, 0);
  assert.match(run.iterations[1].prompt, /no self-evaluation was written/);
  assert.equal(run.iterations.length, 2);
});

test('rewards come from the verifier and the meta-verifier: the honest flawed proof gets 0.62', async () => {
  const backend = new ScriptedBackend(
    router(
      () => [generatorOutput(PROOF, '0.5', 'Step 2 skips a detail.')],
      () => judgeOutput('0.5'),
    ),
  );
  const meta = new ScriptedBackend(
    router(
      () => [],
      (prompt) => judgeOutput(prompt.includes('check the evaluation') ? '1' : '0.5'),
    ),
  );
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, stepScores: false } },
    { generator: backend, verifier: meta },
  );
  const c = run.iterations[0].candidates[0];
  assert.equal(c.verifier?.score, 0.5);
  assert.equal(c.meta?.score, 1);
  assert.ok(Math.abs((c.rewards.r ?? -1) - 0.62) < 1e-9);
  assert.equal(run.models.verifier.name, 'scripted');
  // The generator backend was asked only to generate proofs; the separate verifier did the judging.
  assert.equal(backend.calls.length, 1);
  assert.equal(meta.calls.length, 2);
});

test('k verifier passes are averaged into R_Y', async () => {
  let judged = 0;
  const backend = new ScriptedBackend(({ input, options }) => {
    if (promptText(input).includes('You are grading a proof')) {
      judged++;
      assert.equal(options.n, 2);
      return [judgeOutput('1'), judgeOutput('0')];
    }
    return [generatorOutput(PROOF, '1')];
  });
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { verifierPasses: 2, metaVerify: false, stepScores: false } },
    { generator: backend },
  );
  assert.equal(judged, 1);
  const c = run.iterations[0].candidates[0];
  assert.equal(c.verifier?.passes.length, 2);
  assert.equal(c.verifier?.score, 0.5);
  assert.equal(c.meta, null);
  // Meta-verification off: R_meta is taken as 1, so R_Z = R_score = 0.5.
  assert.equal(c.rewards.rZ, 0.5);
});

test('best-of-N generates the candidates in one batched call and ranks them by verifier score', async () => {
  const candidates = [
    generatorOutput('weak', '1'),
    generatorOutput('strong', '0.5'),
    generatorOutput('middle', '1'),
  ];
  const scores: Record<string, string> = { weak: '0', strong: '1', middle: '0.5' };
  const backend = new ScriptedBackend(
    router(
      () => candidates,
      (prompt) => judgeOutput(Object.entries(scores).find(([k]) => prompt.includes(`\n${k}\n`))?.[1] ?? '0'),
    ),
  );
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { candidates: 3, maxIterations: 1, metaVerify: false, stepScores: false } },
    { generator: backend },
  );
  const generateCalls = backend.calls.filter((c) => c.options.n === 3);
  assert.equal(generateCalls.length, 1);
  const round = run.iterations[0];
  assert.deepEqual(round.ranking, [1, 2, 0]);
  assert.equal(round.chosen, 1);
  assert.equal(round.candidates[round.chosen].parsed.proof, 'strong');
});

test('best-of-N ranked by self-score or by PRM score', async () => {
  const candidates = [generatorOutput('a', '0'), generatorOutput('b', '1')];
  const bySelf = await proveAndVerify(
    {
      problem: PROBLEM,
      options: { candidates: 2, maxIterations: 1, rerankBy: 'self', metaVerify: false, stepScores: false },
    },
    { generator: new ScriptedBackend(router(() => candidates)) },
  );
  assert.deepEqual(bySelf.iterations[0].ranking, [1, 0]);

  const scorer: StepScorer = {
    info: { kind: 'prm', name: 'by-text' },
    scoreSteps: async (_p, steps) => steps.map((s) => (s === 'a' ? 0.9 : 0.2)),
  };
  const byPrm = await proveAndVerify(
    {
      problem: PROBLEM,
      options: { candidates: 2, maxIterations: 1, rerankBy: 'prm', metaVerify: false, stepScores: false },
    },
    { generator: new ScriptedBackend(router(() => candidates)), stepScorer: scorer },
  );
  assert.deepEqual(byPrm.iterations[0].ranking, [0, 1]);
  assert.equal(byPrm.iterations[0].candidates[0].stepScores?.solutionScore, 0.9);
});

test('step scores split the proof and aggregate by product or minimum', async () => {
  const backend = () => new ScriptedBackend(router(() => [generatorOutput(PROOF, '1')]));
  const product = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, metaVerify: false } },
    { generator: backend(), stepScorer: fixedScorer(0.5) },
  );
  const steps = product.iterations[0].candidates[0].stepScores;
  assert.ok(steps && steps.steps.length >= 2, 'the two paragraphs are two steps');
  assert.equal(steps.scorer.name, 'fixed');
  assert.ok(Math.abs((steps.solutionScore ?? 0) - 0.5 ** steps.steps.length) < 1e-12);
  const min = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, metaVerify: false, stepAggregate: 'min' } },
    { generator: backend(), stepScorer: fixedScorer(0.5) },
  );
  assert.equal(min.iterations[0].candidates[0].stepScores?.solutionScore, 0.5);
});

test('without a PRM, steps are scored by the verifier’s log-probabilities of + and −', async () => {
  const backend = new ScriptedBackend(
    router(() => [generatorOutput(PROOF, '1')]),
    (_prompt, continuation) => (continuation === '+' ? Math.log(0.3) : Math.log(0.1)),
  );
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, metaVerify: false } },
    { generator: backend },
  );
  const steps = run.iterations[0].candidates[0].stepScores;
  assert.equal(steps?.scorer.kind, 'verifier-logprob');
  for (const s of steps?.steps ?? []) assert.ok(Math.abs(s.score - 0.75) < 1e-9);
  assert.deepEqual([...new Set(backend.scoreCalls.map((c) => c.continuation))].sort(), ['+', '-']);
});

test('cancelling during generation keeps the streamed text and marks the run cancelled', async () => {
  const controller = new AbortController();
  const backend = new ScriptedBackend(router(() => [generatorOutput(PROOF, '1')]));
  let tokens = 0;
  const run = await proveAndVerify(
    {
      problem: PROBLEM,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'token' && ++tokens === 5) controller.abort();
      },
    },
    { generator: backend },
  );
  assert.equal(run.status, 'cancelled');
  assert.equal(run.stopReason, 'cancelled');
  assert.equal(run.iterations.length, 1);
  const partial = run.iterations[0].candidates[0];
  assert.equal(partial.finishReason, 'abort');
  assert.ok(partial.raw.length > 0 && partial.raw.length < generatorOutput(PROOF, '1').length);
  assert.equal(partial.verifier, null, 'nothing is judged after the cancellation');
  assert.equal(backend.calls.length, 1);
});

test('cancelling during verification keeps the generated candidates', async () => {
  const controller = new AbortController();
  const backend = new ScriptedBackend(router(() => [generatorOutput(PROOF, '0.5')]));
  const run = await proveAndVerify(
    {
      problem: PROBLEM,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'token' && e.phase === 'verify') controller.abort();
      },
    },
    { generator: backend },
  );
  assert.equal(run.status, 'cancelled');
  assert.equal(run.iterations[0].candidates[0].parsed.selfScore, 0.5);
  assert.equal(run.iterations.length, 1);
});

test('a model failure is returned as a failed run with the error and its hint', async () => {
  const backend = new ScriptedBackend(() => {
    throw Object.assign(new Error('The prompt is longer than the context window.'), {
      hint: 'Raise stepwise.model.contextWindow.',
    });
  });
  const run = await proveAndVerify({ problem: PROBLEM }, { generator: backend });
  assert.equal(run.status, 'failed');
  assert.deepEqual(run.error, {
    message: 'The prompt is longer than the context window.',
    hint: 'Raise stepwise.model.contextWindow.',
  });
});

test('events: run-start first, phases and tokens per round, done last with the run', async () => {
  const events: ProveEvent[] = [];
  const backend = new ScriptedBackend(router(() => [generatorOutput(PROOF, '1')]));
  const run = await proveAndVerify(
    { problem: PROBLEM, onEvent: (e) => events.push(e) },
    { generator: backend, stepScorer: fixedScorer(1) },
  );
  assert.equal(events[0].type, 'run-start');
  const last = events[events.length - 1];
  assert.equal(last.type === 'done' && last.run, run);
  const phases = events.flatMap((e) => (e.type === 'phase' ? [e.phase] : []));
  // Step scores before the verdicts: meta-verification is the last request before a refinement.
  assert.deepEqual(phases, ['generate', 'step-score', 'verify', 'meta-verify', 'rank']);
  const generated = events
    .flatMap((e) => (e.type === 'token' && e.phase === 'generate' ? [e.text] : []))
    .join('');
  assert.equal(generated, run.iterations[0].candidates[0].raw);
  assert.ok(events.some((e) => e.type === 'candidate') && events.some((e) => e.type === 'iteration'));
});

test('bad options and an empty problem are refused with a clear message', async () => {
  const backend = new ScriptedBackend(() => ['']);
  await assert.rejects(proveAndVerify({ problem: '  ' }, { generator: backend }), /The problem is empty/);
  await assert.rejects(
    proveAndVerify({ problem: PROBLEM, options: { maxIterations: 0 } }, { generator: backend }),
    /maxIterations/,
  );
  assert.equal(backend.calls.length, 0);
});

test('the olympiad rubric is used when asked for, and its 0–7 points are mapped to R_Y', async () => {
  const backend = new ScriptedBackend(({ input }) =>
    promptText(input).includes('olympiad grader') ? [judgeOutput('6')] : [generatorOutput(PROOF, '0.5')],
  );
  const run = await proveAndVerify(
    {
      problem: PROBLEM,
      options: { rubric: 'olympiad', maxIterations: 1, metaVerify: false, stepScores: false },
    },
    { generator: backend },
  );
  const c = run.iterations[0].candidates[0];
  assert.equal(c.verifier?.passes[0].rawScore, 6);
  assert.equal(c.verifier?.score, 0.5);
  assert.match(run.prompts.verifier, /verifier-olympiad\.md$/);
});
