import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkProof, proofToCheck } from '../../../src/core/prove/check';
import { checkSummary } from '../../../src/cli/commands/check';
import { calibrationReport } from '../../../src/core/prove/calibration';
import type { ProveEvent } from '../../../src/core/prove/events';
import { ProveRunSchema } from '../../../src/core/prove/runSchema';
import { isDataRun } from '../../../src/core/runs/dataRun';
import { parseProofDocument } from '../../../src/core/steps/document';
import { splitSteps } from '../../../src/core/steps/split';
import { nextToLabel } from '../../../src/core/labels/queue';
import type { StepScorer } from '../../../src/core/model/stepScorer';
import { promptText, ScriptedBackend } from './scriptedBackend';
import { loadCalibrator } from '../../../src/core/judgment/judge';

const SQRT_TWO = fs.readFileSync(
  path.join(__dirname, '../../../../examples/proofs/sqrt-two-irrational.md'),
  'utf8',
);
const ISSUE = 'Step 3 assumes that an even square has an even root without saying why.';

/** A verifier that names one issue and grades 0.5; the meta-verifier answers 1. */
function judges(): ScriptedBackend {
  return new ScriptedBackend(({ input }) => {
    const text = promptText(input);
    if (text.includes("check the grader's evaluation"))
      return [
        "Here is my analysis of the grader's evaluation: the named issue is real.\n\nBased on my evaluation, the final overall score should be: \\boxed{1}",
      ];
    return [
      `Here is my evaluation of the solution: ${ISSUE}\n\nBased on my evaluation, the final overall score should be: \\boxed{0.5}`,
    ];
  });
}

const scorer = (scores: number[]): StepScorer => ({
  info: { kind: 'prm', name: 'fixed' },
  scoreSteps: async (_problem, steps) => steps.map((_, i) => scores[i] ?? 0.5),
});

test("the proof to check is the document's steps, so the run's steps are the document's", () => {
  const found = proofToCheck(SQRT_TWO);
  assert.ok('proof' in found);
  assert.equal(found.problem, 'Prove that $\\sqrt{2}$ is irrational.');
  const docSteps = parseProofDocument(SQRT_TWO).steps;
  const runSteps = splitSteps(found.proof);
  assert.equal(runSteps.length, 5);
  assert.deepEqual(
    runSteps.map((s) => [s.index, s.hash]),
    docSteps.map((s) => [s.index, s.hash]),
  );
});

test('a document without a solution or a problem is refused with what to write', () => {
  const noSolution = proofToCheck('## Problem\n\nProve that 1 + 1 = 2.\n');
  assert.ok('error' in noSolution && /## Solution/.test(noSolution.error));
  const noProblem = proofToCheck('## Solution\n\nObvious.\n');
  assert.ok('error' in noProblem && /## Problem/.test(noProblem.error));
});

test("Check My Proof judges the person's proof without generating one", async () => {
  const backend = judges();
  const found = proofToCheck(SQRT_TWO);
  assert.ok('proof' in found);
  const events: ProveEvent[] = [];
  const run = await checkProof(
    { ...found, file: '/w/sqrt-two-irrational.md', onEvent: (e) => events.push(e) },
    { verifier: backend, stepScorer: scorer([0.9, 0.8, 0.3, 0.9, 0.95]) },
  );
  assert.equal(run.kind, 'check');
  assert.equal(run.status, 'completed');
  assert.equal(ProveRunSchema.safeParse(JSON.parse(JSON.stringify(run))).success, true);
  assert.equal(run.iterations.length, 1);
  assert.equal(run.iterations[0].kind, 'check');
  const c = run.iterations[0].candidates[0];
  assert.equal(c.parsed.proof, found.proof, 'the proof is judged as written');
  assert.equal(c.verifier?.score, 0.5);
  assert.match(c.verifier!.passes[0].raw, /even square/);
  assert.equal(c.meta?.score, 1);
  assert.deepEqual(
    c.stepScores?.steps.map((s) => s.score),
    [0.9, 0.8, 0.3, 0.9, 0.95],
  );
  // No self-evaluation: no self-score, and no reward that would read as the proof's worth.
  assert.equal(c.parsed.selfScore, null);
  assert.equal(c.rewards.r, null);
  assert.equal(c.rewards.rY, 0.5);
  // Only judges ran: the verifier, then the meta-verifier on the verifier's own analysis.
  assert.equal(backend.calls.length, 2);
  assert.match(promptText(backend.calls[0].input), /You are grading a proof/);
  assert.ok(
    promptText(backend.calls[1].input).includes(ISSUE),
    "the meta-verifier reads the verifier's issues",
  );
  assert.deepEqual(
    events.filter((e) => e.type === 'phase').map((e) => (e as { phase: string }).phase),
    ['step-score', 'verify', 'meta-verify'],
  );
  // A checked proof joins the calibration data (verifier score against the verifier's own view).
  assert.equal(isDataRun(run), true);
  assert.equal(calibrationReport([run]).constrained + calibrationReport([run]).free, 1);
  // ...but not the queue of generated solutions to label: it is labelled in its own document.
  assert.equal(nextToLabel([{ run }], new Set()).length, 0);
});

test('a cancelled check is recorded as cancelled and kept out of calibration data', async () => {
  const controller = new AbortController();
  const found = proofToCheck(SQRT_TWO);
  assert.ok('proof' in found);
  const run = await checkProof(
    {
      ...found,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'token' && e.phase === 'verify') controller.abort();
      },
    },
    { verifier: judges(), stepScorer: scorer([0.9]) },
  );
  assert.equal(run.status, 'cancelled');
  assert.equal(run.stopReason, 'cancelled');
  assert.equal(run.error, null, 'a cancellation is not a failure');
  assert.ok(run.iterations[0].candidates[0].stepScores, 'the finished step scores are kept');
  assert.equal(ProveRunSchema.safeParse(JSON.parse(JSON.stringify(run))).success, true);
  assert.equal(isDataRun(run), false);
  const report = calibrationReport([run]);
  assert.equal(report.constrained + report.free, 0);
});

test('the CLI summary of a check leads with the grade, the step scores and the issues', async () => {
  const found = proofToCheck(SQRT_TWO);
  assert.ok('proof' in found);
  const run = await checkProof(found, { verifier: judges(), stepScorer: scorer([0.9, 0.8, 0.3, 0.9, 0.95]) });
  const text = checkSummary(run, '/w/.stepwise/runs/x.json');
  assert.match(text, /^status: completed/);
  assert.match(text, /verifier score: 0\.50/);
  assert.match(text, /meta-verifier \(are the issues below real\?\): 1\.00/);
  assert.match(text, /0\.30 {2}step 3: Since the square of an odd number is odd/);
  assert.ok(text.includes(ISSUE));
  assert.match(text, /saved: \/w\/\.stepwise\/runs\/x\.json\n$/);
});

test('a checked proof gets P(correct) from the calibrator, from the signals a check has (no self-score)', async () => {
  const found = proofToCheck(SQRT_TWO);
  assert.ok('proof' in found);
  const calibrator = { calibrator: loadCalibrator(), source: 'calibrator.json' };
  const run = await checkProof(found, {
    verifier: judges(),
    stepScorer: scorer([0.9, 0.8, 0.3, 0.9, 0.95]),
    calibrator,
  });
  const c = run.iterations[0].candidates[0];
  assert.ok(c.judgment, 'a judgment is recorded');
  assert.ok(c.judgment.pCorrect > 0 && c.judgment.pCorrect < 1);
  const used = c.judgment.evidence.map((e) => e.feature);
  assert.ok(used.includes('verifierScore'), used.join());
  assert.ok(!used.includes('selfScore'), "a person's proof has no self-score to weigh");
  assert.equal(ProveRunSchema.safeParse(JSON.parse(JSON.stringify(run))).success, true);
  assert.match(
    checkSummary(run, 'x.json'),
    /^P\(correct\): (likely wrong|uncertain|likely right) \(P = 0\.\d\d\)$/m,
  );
  // Without a calibrator the check still runs, and says it has no calibrated judgment.
  const bare = await checkProof(found, { verifier: judges(), stepScorer: scorer([0.9]) });
  assert.equal(bare.iterations[0].candidates[0].judgment ?? null, null);
  assert.match(checkSummary(bare, 'x.json'), /^P\(correct\): no calibrated judgment$/m);
});
