import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { checkProof } from '../../../src/core/prove/check';
import { checkSummary } from '../../../src/cli/commands/check';
import { learnedStepScorer } from '../../../src/cli/stepScorerFlag';
import { LearnedStepScorer, stepHeadName } from '../../../src/core/judgment/learnedStepScorer';
import {
  loadStepHead,
  parseStepHead,
  STEP_HEAD_SCHEMA,
  STEP_HEAD_VERSION,
  type StepHead,
} from '../../../src/core/judgment/stepHead';
import type { ModelInput, ScoreResult } from '../../../src/core/model/types';
import { stepMarkText, stepScorerText } from '../../../src/core/judgment/verdictText';
import { promptText, ScriptedBackend } from '../prove/scriptedBackend';

/** P(step not wrong) rises with the least likely digit token's log-probability. */
const head = (model = 'scripted'): StepHead => ({
  schema: STEP_HEAD_SCHEMA,
  version: STEP_HEAD_VERSION,
  kind: 'step-surprise',
  model,
  features: ['numberMinLogprob'],
  l2: 1,
  mean: [-1],
  scale: [1],
  weights: [1.5],
  bias: 1,
  threshold: 0.5,
  fit: { solutions: 10, steps: 30, wrongSteps: 5, cvLogLoss: 0.3, cvFirstError: 0.7 },
  source: {},
  heldOut: { problems: 12, solutions: 24, steps: 70, stepAuroc: 0.9, firstErrorAccuracy: 0.68 },
});

/**
 * A generator that scores word by word and finds "13" very unlikely: the wrong number of the
 * proof below. The verifier and meta-verifier answer from a script.
 */
class SurprisedGenerator extends ScriptedBackend {
  constructor() {
    super(({ input }) =>
      promptText(input).includes("check the grader's evaluation")
        ? ['The issues are real.\n\nBased on my evaluation, the final overall score should be: \\boxed{1}']
        : ['Step 2 is wrong.\n\nBased on my evaluation, the final overall score should be: \\boxed{0}'],
    );
  }

  override async score(prompt: ModelInput, continuation: string): Promise<ScoreResult> {
    this.scoreCalls.push({ prompt, continuation });
    const tokens = continuation
      .split(/(?=[ \n])/)
      .map((text) => ({ text, logprob: /\b13\b/.test(text) ? -9 : -0.2 }));
    return { tokens, totalLogprob: tokens.reduce((a, t) => a + t.logprob, 0) };
  }
}

const PROOF = 'We have 4 + 5 = 9.\n\nThen 9 + 3 = 13.\n\nSo the sum is 13 - 1 = 12.';

test("Check My Proof with a step head: the person's steps are scored by the head over the generator", async () => {
  const generator = new SurprisedGenerator();
  const scorer = new LearnedStepScorer(generator, head(), (problem) => [{ role: 'user', content: problem }]);
  const run = await checkProof(
    { problem: 'Compute 4 + 5 + 3.', proof: PROOF, options: { verifierMaxTokens: 32 } },
    { verifier: generator, stepScorer: scorer },
  );
  assert.equal(run.status, 'completed', run.error?.message);
  const c = run.iterations[0].candidates[0];
  assert.deepEqual(run.models.stepScorer, {
    kind: 'step-head',
    name: 'learned step head on scripted (held-out step AUROC 0.90, first error 68 %, 12 problems)',
  });
  assert.deepEqual(c.stepScores?.scorer, run.models.stepScorer);
  // One teacher-forced pass over all the steps, not one request per step.
  assert.equal(generator.scoreCalls.length, 1);
  const scores = c.stepScores!.steps.map((s) => s.score);
  assert.equal(scores.length, 3);
  assert.ok(scores[0] > 0.5 && scores[1] < 0.5, `step scores ${scores.join(', ')}`);
  const summary = checkSummary(run, 'run.json');
  assert.match(summary, /step scores: learned step head on scripted \(held-out step AUROC 0\.90/);
});

test('a head fitted on another model is refused, by the scorer and by --step-scorer', () => {
  const generator = new SurprisedGenerator();
  assert.throws(
    () => new LearnedStepScorer(generator, head('Qwen2.5-Coder-0.5B-Instruct'), () => []),
    /fitted on Qwen2\.5-Coder-0\.5B-Instruct, but the generator is scripted/,
  );
  assert.throws(
    () => learnedStepScorer(generator, head('Qwen2.5-Coder-0.5B-Instruct')),
    /--step-scorer: it was fitted on Qwen2\.5-Coder-0\.5B-Instruct.*train-steps/,
  );
});

test('the panel line says plainly which scorer produced the step scores', () => {
  assert.equal(stepScorerText(null), 'steps not scored');
  assert.equal(
    stepScorerText({ kind: 'step-head', name: stepHeadName(head()) }),
    'step scores: learned step head on scripted (held-out step AUROC 0.90, first error 68 %, 12 problems)',
  );
  assert.equal(
    stepHeadName({ ...head(), heldOut: undefined }),
    'learned step head on scripted (not measured on held-out steps)',
  );
  assert.equal(stepScorerText({ kind: 'prm', name: 'prm-7' }), 'step scores: process reward model prm-7');
  assert.match(
    stepScorerText({ kind: 'verifier-logprob', name: 'SmolLM2' }),
    /the verifier \(SmolLM2\) asked about each step/,
  );
});

test('Score Steps marks say which scorer scored a step, and the head flags the step below its threshold', async () => {
  const scorer = new LearnedStepScorer(new SurprisedGenerator(), head(), (problem) => [
    { role: 'user', content: problem },
  ]);
  assert.equal(scorer.threshold, 0.5);
  const steps = PROOF.split('\n\n');
  const scores = await scorer.scoreSteps('Compute 4 + 5 + 3.', steps);
  const marks = scores.map((score, i) => stepMarkText(scorer.info, i, score, scorer.threshold));
  // Step 2 holds the surprising "13": the head calls it wrong, and not the step before it.
  assert.deepEqual(
    marks.map((m) => m.flagged),
    [false, true, true],
  );
  assert.match(marks[1].label, /^step head 0\.\d\d · likely wrong$/);
  assert.match(
    marks[1].hover,
    /^The learned step head on scripted \(held-out step AUROC 0\.90, first error 68 %, 12 problems\): P\(step 2 is not wrong\) = 0\.\d{3}, below its threshold 0\.50: likely wrong\.$/,
  );
  assert.match(marks[0].hover, /not below its threshold 0\.50\.$/);
  // A PRM carries no threshold: its score is shown as it is, nothing flagged.
  const prm = stepMarkText({ kind: 'prm', name: 'prm-7' }, 0, 0.1);
  assert.deepEqual(prm, {
    label: 'PRM 0.10',
    hover: 'Process reward model prm-7: P(step 1 is correct) = 0.100',
    flagged: false,
  });
});

test('a head keeps its held-out figures through a file; malformed ones are refused', () => {
  const shipped = loadStepHead(path.join(__dirname, '../../../../bench/runs/learned-steps/step-head.json'));
  assert.match(
    stepHeadName(shipped),
    /^learned step head on Qwen2\.5-Coder-0\.5B-Instruct \(held-out step AUROC 0\.90, first error 69 %, 36 problems\)$/,
  );
  const bad = {
    ...head(),
    heldOut: { problems: 3, solutions: 6, steps: 9, stepAuroc: 1.4, firstErrorAccuracy: 0.5 },
  };
  assert.match(JSON.stringify(parseStepHead(bad)), /malformed/);
  assert.ok('head' in parseStepHead({ ...head(), heldOut: undefined }));
});
