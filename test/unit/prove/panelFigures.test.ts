import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proveAndVerify } from '../../../src/core/prove/prove';
import { checkProof, proofToCheck } from '../../../src/core/prove/check';
import { aggregateStepScores } from '../../../src/core/prove/stepScores';
import type { ProveRun } from '../../../src/core/prove/runSchema';
import type { StepScorer } from '../../../src/core/model/stepScorer';
import { loadCalibrator } from '../../../src/core/judgment/judge';
import { candidateFigures } from '../../../src/shared/proveFigures';
import { generatorOutput, judgeOutput, promptText, ScriptedBackend } from './scriptedBackend';

const PROBLEM = 'Prove that the sum of two even integers is even.\nAnswer: even';
const PROOF = 'Let a = 2m and b = 2n.\n\nThen a + b = 2(m + n), which is \\boxed{even}.';
const calibrator = { calibrator: loadCalibrator(), source: 'calibrator.json' };
const scorer: StepScorer = {
  info: { kind: 'prm', name: 'fixed' },
  scoreSteps: async (_problem, steps) => steps.map((_, i) => [0.9, 0.6, 0.8][i % 3]),
};
const near = (a: number | null, b: number | null) =>
  a === b || (a !== null && b !== null && Math.abs(a - b) < 1e-9);

/**
 * Every pair of figures the Prove panel shows for one run that must agree, as the sentences a
 * person would use to point at a contradiction. Empty when the panel is consistent.
 */
function contradictions(run: ProveRun): string[] {
  const found: string[] = [];
  for (const it of run.iterations)
    for (const c of it.candidates) {
      const f = candidateFigures(c);
      const where = `round ${it.index + 1}, candidate ${c.index + 1}`;
      if (!near(f.verifier, c.rewards.rY))
        found.push(`${where}: verifier card ${f.verifier} vs R_Y ${c.rewards.rY}`);
      if (!near(f.meta, c.rewards.rMeta))
        found.push(`${where}: meta card ${f.meta} vs R_meta ${c.rewards.rMeta}`);
      if (!near(f.self, c.parsed.selfScore))
        found.push(`${where}: self card ${f.self} vs the self-score R_score used`);
      if (
        f.self !== null &&
        f.verifier !== null &&
        !near(c.rewards.rScore, 1 - Math.abs(f.self - f.verifier))
      )
        found.push(`${where}: R_score ${c.rewards.rScore} vs 1 − |self − verifier|`);
      const steps = c.stepScores?.steps.map((s) => s.score) ?? [];
      if (!near(f.solution, steps.length ? aggregateStepScores(steps, run.options.stepAggregate) : null))
        found.push(
          `${where}: solution score ${f.solution} vs the ${run.options.stepAggregate} of its step scores`,
        );
      if (run.kind === 'check' && (f.reward !== null || f.self !== null))
        found.push(`${where}: a checked proof shows a reward or a self-score`);
    }
  // The header's stop reason against the final candidate's figures.
  const final = run.final && run.iterations[run.final.iteration]?.candidates[run.final.candidate];
  if (final && run.kind === 'prove') {
    const f = candidateFigures(final);
    const reaches = f.pCorrect !== null && f.pCorrect >= run.options.stopProbability;
    if (run.stopReason === 'p-correct' && !reaches)
      found.push(`status "P(correct) ≥ ${run.options.stopProbability}" but the card shows P = ${f.pCorrect}`);
    if (run.stopReason === 'self-score-1' && final.selfScoreDistribution?.chosen !== '1')
      found.push('status "the self-evaluation boxed 1" but its boxed score is not 1');
    if (run.stopReason === 'max-iterations' && reaches && final.finishReason !== 'length')
      found.push(`status "max iterations" but P = ${f.pCorrect} had reached the stop threshold`);
  }
  return found;
}

/** Self-score `self`; verifier passes alternate between the verdicts given, one of them unreadable. */
function backend(self: string, verdicts: string[]): ScriptedBackend {
  let judged = 0;
  return new ScriptedBackend(({ input }) => {
    const text = promptText(input);
    if (text.includes('You are grading a proof') || text.includes('check the evaluation'))
      return [judgeOutput(verdicts[judged++ % verdicts.length])];
    return [generatorOutput(PROOF, self), generatorOutput(PROOF, self === '1' ? '0.5' : '1')];
  });
}

test('the figures a Prove panel shows for one run never contradict each other', async () => {
  for (const [self, verdicts, stopProbability] of [
    ['1', ['1', '0.5'], 0.99],
    ['0', ['0', 'no verdict'], 0.5],
    ['0.5', ['1'], 0.01],
  ] as const) {
    const run = await proveAndVerify(
      {
        problem: PROBLEM,
        options: { maxIterations: 2, candidates: 2, verifierPasses: 2, stopProbability },
      },
      { generator: backend(self, [...verdicts]), stepScorer: scorer, calibrator },
    );
    assert.equal(run.status, 'completed');
    // Every figure is there to compare: scored steps, judged candidates, two verifier passes.
    const all = run.iterations.flatMap((it) => it.candidates);
    assert.ok(all.every((c) => c.stepScores && c.judgment && c.verifier?.passes.length === 2 && c.meta));
    assert.deepEqual(contradictions(run), [], `self ${self}, verdicts ${verdicts.join('/')}`);
  }
});

test('a checked proof shows no reward and no self-score, and its figures agree', async () => {
  const found = proofToCheck(`## Problem\n\n${PROBLEM}\n\n## Solution\n\n${PROOF}\n`);
  assert.ok('proof' in found);
  const run = await checkProof(found, { verifier: backend('1', ['0.5']), stepScorer: scorer, calibrator });
  assert.equal(run.status, 'completed');
  assert.deepEqual(contradictions(run), []);
});

test('the consistency check does find a contradiction: a verifier card that is not R_Y', async () => {
  const run = await proveAndVerify(
    { problem: PROBLEM, options: { maxIterations: 1, candidates: 1 } },
    { generator: backend('1', ['1']), stepScorer: scorer, calibrator },
  );
  const c = run.iterations[0].candidates[0];
  c.rewards = { ...c.rewards, rY: 0.25 };
  assert.match(contradictions(run).join('\n'), /verifier card 1 vs R_Y 0.25/);
});
