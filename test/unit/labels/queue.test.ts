import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { finalAnswerOf, nextToLabel } from '../../../src/core/labels/queue';
import { readRunDocuments } from '../../../src/core/runs/folder';
import { solutionIdOf } from '../../../src/core/steps/document';
import { scratchDir } from '../scratchDir';

// The flat shape another tool may save: candidates with a proof, step scores and a verifier score.
const flatRun = {
  problem: 'Compute 6 * 7.',
  knownAnswer: '42',
  candidates: [
    { proof: '6 * 7 = 42.\nSo the answer is \\boxed{42}.', stepScores: [0.95, 0.9], verifierScore: 0.9 },
    { proof: '6 * 7 = 48.\nSo the answer is \\boxed{48}.', stepScores: [0.9, 0.85], verifierScore: 0.8 },
    { proof: '6 * 7 = 36.\nSo \\boxed{36}.', stepScores: [0.2, 0.1], verifierScore: 0.1 },
  ],
};

test('convincing wrong answers come first: high step scores, final answer disagreeing with the known one', () => {
  const queue = nextToLabel([{ run: flatRun, file: 'runs/a.json' }], new Set());
  assert.deepEqual(
    queue.map((q) => finalAnswerOf(q.proof)),
    ['48', '36', '42'],
  );
  assert.match(queue[0].why, /disagrees with the known answer 42/);
  assert.equal(queue[0].runId, 'a');
  assert.equal(queue[2].wrong, 0, 'a right answer is least informative');
});

test('without a known answer, a low verifier score marks the likely wrong solution', () => {
  const run = {
    problem: 'P',
    iterations: [
      { proof: 'A.\nB.', stepScores: [0.9, 0.9], verifierScore: 0.1 },
      { proof: 'C.\nD.', stepScores: [0.9, 0.9], verifierScore: 0.9 },
    ],
  };
  const queue = nextToLabel([{ run }], new Set());
  assert.deepEqual(
    queue.map((q) => q.proof),
    ['A.\nB.', 'C.\nD.'],
  );
  assert.ok(Math.abs(queue[0].priority - 0.81) < 1e-9);
});

test('the saved Prove run document shape is read too: parsed.proof, step-score objects, verifier.score', () => {
  const run = {
    schema: 'stepwise.prove-run',
    id: 'run-1',
    problem: { text: 'Compute 1 + 1.', file: null },
    iterations: [
      {
        index: 0,
        candidates: [
          {
            index: 0,
            parsed: { proof: '1 + 1 = 3.', selfScore: 1 },
            verifier: { score: 0 },
            stepScores: { steps: [{ score: 0.8 }], solutionScore: 0.8 },
          },
          {
            index: 1,
            parsed: { proof: '1 + 1 = 2.', selfScore: 1 },
            verifier: { score: 1 },
            stepScores: { steps: [{ score: 0.9 }], solutionScore: 0.9 },
          },
        ],
      },
    ],
  };
  const queue = nextToLabel([{ run }], new Set());
  assert.deepEqual(
    queue.map((q) => [q.runId, q.iteration, q.candidate, q.proof]),
    [
      ['run-1', 0, 0, '1 + 1 = 3.'],
      ['run-1', 0, 1, '1 + 1 = 2.'],
    ],
  );
  assert.equal(queue[0].problem, 'Compute 1 + 1.');
});

test('labelled and duplicate solutions are left out; malformed runs and fields are tolerated', () => {
  const labelled = new Set([solutionIdOf(flatRun.candidates[1].proof)]);
  const queue = nextToLabel(
    [
      { run: flatRun },
      { run: flatRun }, // the same solutions again
      { run: null },
      { run: 'not a run' },
      {
        run: {
          problem: 7,
          candidates: [{ proof: 'X.', stepScores: 'high', verifierScore: 'bad' }, { noProof: true }],
        },
      },
    ],
    labelled,
  );
  assert.equal(
    queue.filter((q) => q.proof.includes('48')).length,
    0,
    'the labelled solution is not offered again',
  );
  assert.equal(queue.filter((q) => q.proof.includes('36')).length, 1, 'each solution appears once');
  const x = queue.find((q) => q.proof === 'X.');
  assert.ok(x, 'a run with bad fields still contributes its readable candidate');
  assert.equal(x.convincing, 0.5);
});

test('the final answer comes from the last \\boxed{} or a closing "# Answer" section', () => {
  assert.equal(finalAnswerOf('x = \\boxed{1}, then \\boxed{\\frac{1}{2}}'), '\\frac{1}{2}');
  assert.equal(finalAnswerOf('So it is 320,000.\n\n# Answer\n\n320,000'), '320,000');
  assert.equal(finalAnswerOf('no answer here'), null);
  // "40,\!000" in LaTeX is the number 40000.
  const q = nextToLabel(
    [{ run: { problem: 'P', knownAnswer: '40,\\!000', candidates: [{ proof: '\\boxed{40000}' }] } }],
    new Set(),
  );
  assert.equal(q[0].wrong, 0);
});

test('run files are read from the runs folder; a file that is not JSON is reported, not fatal', async () => {
  const dir = scratchDir('stepwise-runs-');
  fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify(flatRun));
  fs.writeFileSync(path.join(dir, 'b.json'), '{ broken');
  const { runs, skipped } = await readRunDocuments(dir);
  assert.equal(runs.length, 1);
  assert.deepEqual(
    skipped.map((s) => path.basename(s.file)),
    ['b.json'],
  );
  assert.deepEqual(await readRunDocuments(path.join(dir, 'missing')), { runs: [], skipped: [] });
});
