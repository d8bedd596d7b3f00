import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { isDone } from '../../../src/core/prove/evaluate';
import { ProveRunSchema } from '../../../src/core/prove/runSchema';
import type { Calibrator, JudgmentModel } from '../../../src/core/judgment/calibrator';
import type { FeatureName } from '../../../src/core/judgment/features';
import { judge, loadCalibrator } from '../../../src/core/judgment/judge';
import { judgmentText, evidenceLines } from '../../../src/core/judgment/verdictText';
import {
  generatorOutput,
  judgeOutput,
  promptText,
  ScriptedBackend,
  type PlanAnswer,
} from './scriptedBackend';

const PROBLEM = 'Prove that the sum of two even integers is even.';
const PROOF = 'Let a = 2m and b = 2n.\n\nThen a + b = 2(m + n), which is even.';
const isJudge = (text: string) =>
  text.includes('You are grading a proof') || text.includes('check the evaluation');

/** A calibrator with one model: P = σ(bias + weight · signal), the other signals ignored. */
function calibratorOn(
  signal: FeatureName,
  weight: number,
  bias: number,
): { calibrator: Calibrator; source: string } {
  const features: FeatureName[] = [signal, 'truncated', 'boxed'];
  const model: JudgmentModel = {
    features,
    l2: 1,
    mean: [0, 0, 0],
    scale: [1, 1, 1],
    weights: [weight, 0, 0],
    bias,
    map: { kind: 'identity' },
    fit: { rows: 0, positives: 0, cvBrier: {} },
  };
  return {
    calibrator: { schema: 'stepwise.judgment-calibrator', version: 1, source: {}, l2: [1], models: [model] },
    source: 'test',
  };
}

/** Generator outputs self-score `self`; every verifier pass scores `verdict`. */
function backendOf(self: string, verdict: string) {
  return new ScriptedBackend(({ input }) =>
    isJudge(promptText(input)) ? [judgeOutput(verdict)] : [generatorOutput(PROOF, self)],
  );
}

// σ(−4 + 6·1) = 0.88 for a verifier score of 1.
const byVerifier = calibratorOn('verifierScore', 6, -4);

test('refinement stops once P(correct) reaches the threshold, even when the self-score is not 1', async () => {
  const run = await proveAndVerify(
    {
      problem: PROBLEM,
      options: { maxIterations: 3, stepScores: false, metaVerify: false, stopProbability: 0.8 },
    },
    { generator: backendOf('0', '1'), calibrator: byVerifier },
  );
  assert.equal(run.stopReason, 'p-correct');
  assert.equal(run.iterations.length, 1);
  const judgment = run.iterations[0].candidates[0].judgment!;
  assert.ok(Math.abs(judgment.pCorrect - 0.881) < 1e-3);
  assert.equal(judgment.verdict, 'likely-right');
  assert.deepEqual(
    judgment.evidence.map((e) => e.feature),
    ['verifierScore', 'truncated', 'boxed'],
  );
  assert.deepEqual(judgment.unused, ['selfScore']);
  assert.equal(ProveRunSchema.safeParse(JSON.parse(JSON.stringify(run))).success, true);
});

test('refinement goes on below the threshold, even when the self-evaluation boxes 1', async () => {
  const run = await proveAndVerify(
    {
      problem: PROBLEM,
      options: { maxIterations: 3, stepScores: false, metaVerify: false, stopProbability: 0.95 },
    },
    { generator: backendOf('1', '1'), calibrator: byVerifier },
  );
  assert.equal(run.stopReason, 'max-iterations');
  assert.equal(run.iterations.length, 3);
});

test('without a calibrator the self-evaluation still decides, and no judgment is recorded', async () => {
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 3, stepScores: false, metaVerify: false } },
    { generator: backendOf('1', '0') },
  );
  assert.equal(run.stopReason, 'self-score-1');
  assert.equal(run.iterations[0].candidates[0].judgment, undefined);
});

test('a Solution cut at its token limit is never done, whatever its self-score or P(correct)', async () => {
  const long = Array.from({ length: 40 }, (_, i) => `step${i}`).join(' ');
  const backend = new ScriptedBackend(
    () => [],
    undefined,
    ({ input }): PlanAnswer[] =>
      isJudge(promptText(input))
        ? [{ analysis: 'Checked.', score: { '1': 1 } }]
        : [{ proof: long, selfAnalysis: 'All good.', selfScore: { '1': 1 } }],
  );
  for (const calibrator of [undefined, byVerifier]) {
    const run = await proveAndVerify(
      {
        problem: PROBLEM,
        options: { maxIterations: 2, stepScores: false, metaVerify: false, maxTokens: 16 },
      },
      { generator: backend, calibrator },
    );
    const chosen = run.iterations[0].candidates[0];
    assert.equal(chosen.finishReason, 'length');
    assert.equal(chosen.selfScoreDistribution?.chosen, '1');
    assert.equal(run.iterations.length, 2, 'a cut Solution was refined');
    assert.equal(run.stopReason, 'max-iterations');
  }
});

test('best-of-N picks the candidate with the highest P(correct), not the verifier favourite', async () => {
  // Candidate 1 self-scores 1 and the verifier gives it 0; candidate 2 the other way round.
  const backend = new ScriptedBackend(({ input }) => {
    const text = promptText(input);
    if (isJudge(text)) return [judgeOutput(text.includes('FIRST') ? '0' : '1')];
    return [generatorOutput(`FIRST ${PROOF}`, '1'), generatorOutput(`SECOND ${PROOF}`, '0')];
  });
  const options = { maxIterations: 1, candidates: 2, stepScores: false, metaVerify: false };
  const bySelf = calibratorOn('selfScore', 6, -4);
  const judged = await proveAndVerify(
    { problem: PROBLEM, options },
    { generator: backend, calibrator: bySelf },
  );
  assert.equal(judged.iterations[0].chosen, 0);
  const plain = await proveAndVerify({ problem: PROBLEM, options }, { generator: backend });
  assert.equal(plain.iterations[0].chosen, 1, 'without judgments the verifier ranks');
});

test('the stop rule reads the score the self-evaluation boxes, not the mode of its distribution', async () => {
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, stepScores: false, metaVerify: false } },
    { generator: backendOf('1', '1') },
  );
  const c = run.iterations[0].candidates[0];
  assert.equal(isDone(c), true);
  // A constrained choice can put most mass on 1 and still sample 0 into the text.
  c.selfScoreDistribution = {
    ...c.selfScoreDistribution!,
    source: 'choice',
    chosen: '0',
    options: [
      { option: '0', value: 0, probability: 0.3 },
      { option: '0.5', value: 0.5, probability: 0.1 },
      { option: '1', value: 1, probability: 0.6 },
    ],
  };
  assert.equal(isDone(c), false);
});

test('a known-wrong proof reads "likely wrong" in the panel-facing summary under the shipped calibrator', () => {
  // The am-gm-two.md failure: cut at its token limit, its answer shared with no other candidate,
  // yet a confident self-score.
  const judgment = judge(loadCalibrator(), {
    selfScore: 0.95,
    verifierScore: 0.58,
    metaScore: null,
    agreement: 0.25,
    weakestStep: null,
    learnedScore: null,
    truncated: 1,
    boxed: 1,
  });
  assert.match(judgmentText(judgment), /^likely wrong \(P = 0\.\d\d\)$/);
  assert.ok(evidenceLines(judgment!).some((l) => l.startsWith('cut at token limit 1.00')));
});
