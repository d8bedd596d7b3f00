import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { trainLearnedSteps } from '../../../src/core/eval/learnedSteps';
import type { LabelledSteps } from '../../../src/core/eval/prmEval';
import { mulberry32 } from '../../../src/core/math/stats';
import {
  firstErrorAccuracy,
  loadStepHead,
  parseStepHead,
  processBenchF1,
  stepHeadScore,
  type StepSample,
} from '../../../src/core/judgment/stepHead';
import { joinSteps, stepFeatures, type StepFeatures } from '../../../src/core/judgment/stepFeatures';
import { TokenJournal } from '../../../src/core/judgment/tokenJournal';
import type { GeneratedToken } from '../../../src/core/model/types';

/** Tokens of the joined steps: a few per step, the wrong step's number token made surprising. */
function tokensOf(steps: string[], surprise: number | null, random: () => number): GeneratedToken[] {
  const tokens: GeneratedToken[] = [];
  steps.forEach((step, i) => {
    const words = step.split(/(?= )/);
    words.forEach((w, j) => {
      const base = -0.2 - 1.5 * random() ** 3;
      const wrongHere = surprise === i && /\d/.test(w);
      tokens.push({
        text: (i > 0 && j === 0 ? '\n' : '') + w,
        logprob: wrongHere ? base - 4 - 3 * random() : base,
      });
    });
  });
  return tokens;
}

/** Pairs like the injected-error labels: each problem written clean and with step k's number changed. */
function syntheticSolutions(problems: number, seed: number) {
  const random = mulberry32(seed);
  const rows: { solution: LabelledSteps; features: StepFeatures[] }[] = [];
  for (let p = 0; p < problems; p++) {
    const n = 3 + Math.floor(random() * 4);
    const steps = Array.from({ length: n }, (_, i) => `Step ${i} gives x = ${p + i} so we go on`);
    const problem = `Problem ${p}: find x.`;
    rows.push({
      solution: { id: `p${p}-clean`, problem, steps: steps.map((text) => ({ text, rating: 1 as const })) },
      features: stepFeatures(tokensOf(steps, null, random), steps),
    });
    const k = Math.floor(random() * n);
    const cut = steps.slice(0, k + 1);
    rows.push({
      solution: {
        id: `p${p}-wrong`,
        problem,
        steps: cut.map((text, i) => ({ text, rating: i === k ? (-1 as const) : (1 as const) })),
      },
      features: stepFeatures(tokensOf(cut, k, random), cut),
    });
  }
  return rows;
}

/** Scratch folders made by these tests, removed when the file's tests end. */
const scratch: string[] = [];
const scratchDir = (prefix: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};
test.after(() => scratch.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

test('step features pool each step’s own tokens and read nothing after the step', () => {
  const steps = ['a = 1', 'b = 2', 'c = 3'];
  const tokens: GeneratedToken[] = [
    { text: 'a =', logprob: -0.5 },
    { text: ' 1', logprob: -0.1 },
    { text: '\nb', logprob: -1 },
    { text: ' = 2', logprob: -6 },
    { text: '\nc = 3', logprob: null },
  ];
  const f = stepFeatures(tokens, steps);
  assert.equal(f.length, 3);
  assert.equal(f[0].minLogprob, -0.5);
  assert.equal(f[1].minLogprob, -6);
  assert.equal(f[1].numberMinLogprob, -6);
  assert.equal(f[1].rareCount, 1);
  assert.equal(f[1].meanVsSoFar, -3.5 - (-0.5 - 0.1 - 1 - 6) / 4);
  assert.equal(f[2].logTokens, 0, 'a token without a log-probability is left out');
  // The same solution cut after step 2 gives steps 1 and 2 the same features.
  assert.deepEqual(stepFeatures(tokens.slice(0, 4), steps.slice(0, 2)), f.slice(0, 2));
  assert.equal(joinSteps(steps), 'a = 1\nb = 2\nc = 3');
});

test('a head fitted on the fit side finds the surprising wrong step on held-out problems', () => {
  const result = trainLearnedSteps(syntheticSolutions(80, 7), { model: 'synthetic' });
  assert.ok(result.split.fit.problems > 20 && result.split.heldOut.problems > 20);
  const auroc = result.heldOut.stepRoc.auroc ?? 0;
  assert.ok(auroc > 0.85, `held-out step AUROC ${auroc}`);
  // Chance here is well under a half: "no error" or one step among three to six.
  const firstError = result.heldOut.firstError.accuracy.value ?? 0;
  assert.ok(firstError > 0.6, `held-out first-error accuracy ${firstError}`);
  assert.ok(result.head.features.length >= 1);
  assert.ok(result.featureAlone.numberMinLogprob.stepRoc.auroc! > 0.8);
});

test('the result sets both threshold rules side by side, each chosen on the fit side only', () => {
  const rows = syntheticSolutions(80, 7);
  const byF1 = trainLearnedSteps(rows, { model: 'synthetic' });
  const byFirstError = trainLearnedSteps(rows, { model: 'synthetic', thresholdBy: 'first-error' });
  // The rules change the threshold only: the same features and weights, so the same step AUROC.
  assert.deepEqual(byFirstError.head.weights, byF1.head.weights);
  assert.equal(byFirstError.heldOut.stepRoc.auroc, byF1.heldOut.stepRoc.auroc);
  for (const r of [byF1, byFirstError]) {
    const own = r.thresholdRules[r.head.thresholdBy!];
    assert.equal(own.threshold, r.head.threshold);
    assert.deepEqual(own.heldOut, r.heldOut.firstError);
    assert.equal(own.fit.firstError, r.head.fit.cvFirstError);
    assert.deepEqual(r.thresholdRules, byF1.thresholdRules);
  }
  // Each rule is best at its own criterion where it was chosen.
  const { 'processbench-f1': f1Rule, 'first-error': feRule } = byF1.thresholdRules;
  assert.ok(f1Rule.fit.f1 >= feRule.fit.f1 && feRule.fit.firstError >= f1Rule.fit.firstError);
});

test('a step head survives a save and load, and scores the same', () => {
  const { head } = trainLearnedSteps(syntheticSolutions(60, 3), { model: 'synthetic' });
  const dir = scratchDir('step-head-');
  const file = path.join(dir, 'head.json');
  fs.writeFileSync(file, JSON.stringify(head));
  const loaded = loadStepHead(file);
  const f = syntheticSolutions(1, 9)[1].features.at(-1)!;
  assert.equal(stepHeadScore(loaded, f), stepHeadScore(head, f));
  assert.equal(loaded.threshold, head.threshold);
  assert.equal(loaded.model, 'synthetic');
});

test('a file that is not a step head is refused with the reason', () => {
  const dir = scratchDir('step-head-');
  const file = path.join(dir, 'bad.json');
  fs.writeFileSync(file, '{"schema":"stepwise.learned-scorer","version":1}');
  assert.throws(() => loadStepHead(file), /bad\.json: not a learned step head/);
  fs.writeFileSync(file, '{ not json');
  assert.throws(() => loadStepHead(file), /Cannot read the step head .*bad\.json/);
  assert.throws(() => loadStepHead(path.join(dir, 'missing.json')), /Cannot read the step head/);
  const { head } = trainLearnedSteps(syntheticSolutions(60, 3), { model: 'synthetic' });
  assert.match(JSON.stringify(parseStepHead({ ...head, version: 9 })), /version 9 is not supported/);
  assert.match(JSON.stringify(parseStepHead({ ...head, weights: [] })), /malformed/);
  assert.match(JSON.stringify(parseStepHead({ ...head, features: ['hiddenState'] })), /malformed/);
});

test('a token journal gives back what was scored, for its model only, after a cut last line', () => {
  const dir = scratchDir('token-journal-');
  const file = path.join(dir, 'tokens.jsonl');
  const journal = new TokenJournal(file, 'model-a');
  const key = TokenJournal.keyOf('prompt', 'a = 1');
  journal.put(key, [
    { text: 'a = 1', logprob: -0.25 },
    { text: '!', logprob: null },
  ]);
  fs.appendFileSync(file, '{"model":"model-a","key":"cut');
  assert.deepEqual(new TokenJournal(file, 'model-a').get(key), [
    { text: 'a = 1', logprob: -0.25 },
    { text: '!', logprob: null },
  ]);
  assert.equal(new TokenJournal(file, 'model-b').get(key), undefined);
  const any = new TokenJournal(file);
  assert.deepEqual([...any.models], ['model-a']);
  assert.throws(() => any.put(key, []), /cannot be written/);
  assert.notEqual(TokenJournal.keyOf('prompt', 'a = 1'), TokenJournal.keyOf('prompt', 'a = 2'));
});

test('the threshold is chosen by ProcessBench F1, which flagging nothing cannot win', () => {
  // Eight clean solutions (three with a low-scoring step) and two with a wrong step at 0.25.
  const samples: StepSample[] = [];
  const scores: number[] = [];
  const add = (solution: string, steps: [score: number, wrong: boolean][]) =>
    steps.forEach(([score, wrong], index) => {
      samples.push({ problem: solution, solution, index, features: {} as StepFeatures, wrong });
      scores.push(score);
    });
  for (let i = 0; i < 8; i++)
    add(`clean-${i}`, [
      [0.9, false],
      [i < 3 ? 0.2 : 0.8, false],
      [0.9, false],
    ]);
  for (let i = 0; i < 2; i++)
    add(`wrong-${i}`, [
      [0.9, false],
      [0.25, true],
    ]);
  // Flagging nothing is right on every clean solution: 8 of 10 by first-error accuracy, F1 0.
  assert.equal(firstErrorAccuracy(samples, scores, 0), 0.8);
  assert.equal(processBenchF1(samples, scores, 0), 0);
  // Flagging below 0.3 finds both errors and wrongly flags 3 of 8 clean ones: 0.7, F1 2·1·⅝/(1+⅝).
  assert.equal(firstErrorAccuracy(samples, scores, 0.3), 0.7);
  assert.ok(Math.abs(processBenchF1(samples, scores, 0.3) - 10 / 13) < 1e-12);
});

test('a head records the criterion of its threshold, and its held-out F1', () => {
  const rows = syntheticSolutions(30, 5);
  const f1 = trainLearnedSteps(rows, { model: 'synthetic' });
  assert.equal(f1.head.thresholdBy, 'processbench-f1');
  assert.ok(f1.head.fit.cvF1! > 0.5, `out-of-fold F1 ${f1.head.fit.cvF1}`);
  assert.equal(f1.head.heldOut?.processBenchF1, f1.heldOut.firstError.f1);
  const fe = trainLearnedSteps(rows, { model: 'synthetic', thresholdBy: 'first-error' });
  assert.equal(fe.head.thresholdBy, 'first-error');
  assert.ok(fe.head.fit.cvFirstError >= f1.head.fit.cvFirstError);
  assert.ok(f1.head.fit.cvF1! >= fe.head.fit.cvF1!);
});
