import { test } from 'node:test';
import assert from 'node:assert/strict';
import { candidateOutcome, proveItemResult } from '../../../src/core/eval/proveEval';
import type { CandidateOutcome, ProveItemResult } from '../../../src/core/eval/proveEval';
import { majorityVote, summarizeProve } from '../../../src/core/eval/proveSummary';
import { splitOf } from '../../../src/core/judgment/split';
import { evalSummaryText } from '../../../src/core/eval/summaryText';
import type { EvalResult } from '../../../src/core/eval/evaluation';
import { parseProofOutput } from '../../../src/core/prove/parse';
import type { CandidateRecord, ProveRun } from '../../../src/core/prove/runSchema';

const cand = (
  answer: string | null,
  correct: boolean,
  scores: Partial<CandidateOutcome> = {},
): CandidateOutcome => ({
  answer,
  correct,
  formatReward: 1,
  selfScore: null,
  verifierScore: null,
  stepScore: null,
  finishReason: 'eos',
  ...scores,
});

const item = (rounds: { chosen: number; candidates: CandidateOutcome[] }[]): ProveItemResult => {
  const last = rounds[rounds.length - 1];
  const chosen = last.candidates[last.chosen];
  return {
    id: 'p',
    reference: '1/2',
    status: 'completed',
    stopReason: 'max-iterations',
    error: null,
    rounds: rounds.map((r, i) => ({ kind: i ? 'refine' : 'initial', ...r })),
    final: {
      round: rounds.length - 1,
      candidate: last.chosen,
      answer: chosen.answer,
      correct: chosen.correct,
    },
    stepScorer: null,
    phaseMs: { generate: 4000, verify: 2000, metaVerify: 1000, stepScores: 3000 },
    generation: { mode: 'constrained', fallbackReason: null },
    ms: 1,
  };
};

test('majority vote groups equivalent answers; candidates without an answer do not vote', () => {
  const c = [
    cand('3', false),
    cand('0.5', true),
    cand(null, false),
    cand(null, false),
    cand('\\frac12', true),
    cand('3', false),
    cand('1/2', true),
  ];
  assert.equal(
    majorityVote(c)?.answer,
    '0.5',
    '0.5, \\frac12 and 1/2 are one group of three; the two unanswered do not count',
  );
  assert.equal(majorityVote(c.slice(0, 6))?.answer, '3', 'a tie goes to the group seen first');
  assert.equal(
    majorityVote([cand('\\frac{1}{2}', true), cand('2', false), cand('0.5', true)])?.correct,
    true,
  );
  assert.equal(majorityVote([cand(null, false)]), undefined);
});

test('the scoreboard: accuracy per round carries stopped runs forward; best-of-N by each selector', () => {
  const items = [
    // Wrong first, refined to right; the verifier liked the right candidate, self-score the wrong one.
    item([
      {
        chosen: 0,
        candidates: [
          cand('2', false, { selfScore: 1, verifierScore: 0, stepScore: 0.2 }),
          cand('1/2', true, { selfScore: 0.5, verifierScore: 1, stepScore: 0.9 }),
        ],
      },
      { chosen: 0, candidates: [cand('0.5', true, { selfScore: 1, verifierScore: 1 }), cand('5', false)] },
    ]),
    // Right at once; stopped after one round.
    item([
      {
        chosen: 0,
        candidates: [
          cand('7', true, { selfScore: 1, verifierScore: 1, stepScore: 0.6 }),
          cand(null, false, { formatReward: 0 }),
        ],
      },
    ]),
  ];
  const m = summarizeProve(items);
  assert.equal(m.problems, 2);
  assert.equal(m.accuracy.value, 1);
  assert.deepEqual(
    m.perIteration.map((r) => [r.round, r.accuracy.k, r.stillRefining]),
    [
      [1, 1, 1],
      [2, 2, 0],
    ],
  );
  const s = m.bestOfN.selections;
  assert.equal(m.bestOfN.candidates, 2);
  assert.equal(s.single.k, 1);
  assert.equal(s.verifier.k, 2);
  assert.equal(s.self.k, 1);
  assert.equal(s.stepScore.k, 2);
  assert.equal(s.oracle.k, 2);
  assert.equal(s.majority.k, 1, 'problem 1: "2" and "1/2" tie, the first group wins');
  assert.equal(m.format.candidates.k, 5);
  assert.equal(m.format.boxedAnswer.k, 5);
  assert.equal(m.selfVsVerifier.pairs, 4);
  assert.equal(m.selfVsVerifier.agreement.k, 2);
  assert.equal(m.calibration.verifierScore.roc.auroc, 1);
  assert.equal(m.calibration.selfScore.count, 4);
  assert.deepEqual(m.phaseSeconds, { generate: 4, verify: 2, metaVerify: 1, stepScores: 3 });
  assert.equal(m.constrained.k, 2);
});

test('a candidate is checked on the last box of its Solution, never on the self-score box', () => {
  const raw =
    '## Solution\nWe get $x = \\boxed{3}$ first, but correcting: $\\boxed{\\frac{1}{2}}$.\n\n## Self Evaluation\nHere is my evaluation of the solution: fine.\n\nBased on my evaluation, the final overall score should be: \\boxed{1}';
  const record = {
    index: 0,
    raw,
    finishReason: 'eos',
    parsed: parseProofOutput(raw),
    verifier: null,
    meta: null,
    stepScores: null,
  } as unknown as CandidateRecord;
  const o = candidateOutcome(record, '0.5');
  assert.equal(o.answer, '\\frac{1}{2}');
  assert.equal(o.correct, true);
  assert.equal(o.selfScore, 1);
  // The Solution's text goes into the journal only when asked (--keep-texts), with the learned score.
  assert.equal(o.proof, undefined);
  const kept = candidateOutcome({ ...record, learnedScore: 0.25 } as CandidateRecord, '0.5', true);
  assert.equal(kept.proof, record.parsed.proof);
  assert.equal(kept.learnedScore, 0.25);
  const wrong = candidateOutcome(
    {
      ...record,
      parsed: parseProofOutput(raw.replace('\\boxed{\\frac{1}{2}}', 'one half')),
    } as CandidateRecord,
    '0.5',
  );
  assert.equal(wrong.answer, '3');
  assert.equal(wrong.correct, false);
  const run = {
    status: 'failed',
    stopReason: 'failed',
    error: { message: 'x' },
    iterations: [],
    models: { stepScorer: null },
    generation: {
      generator: { mode: 'free', planMode: null, fallbackReason: 'the backend cannot run plans' },
    },
    totalMs: 3,
  } as unknown as ProveRun;
  const failed = proveItemResult({ id: 'x', problem: 'p', answer: '1' }, run);
  assert.equal(failed.final, null);
  assert.deepEqual(failed.generation, { mode: 'free', fallbackReason: 'the backend cannot run plans' });
});

test('a selection by a score no candidate has (step scores off) is not measured rather than 0 %', () => {
  const items = [
    item([
      {
        chosen: 0,
        candidates: [cand('1', false, { selfScore: 0.2 }), cand('1/2', true, { selfScore: 0.9 })],
      },
    ]),
    item([
      {
        chosen: 0,
        candidates: [cand('1/2', true, { selfScore: 0.8 }), cand('3', false, { selfScore: 0.1 })],
      },
    ]),
  ];
  const { selections } = summarizeProve(items).bestOfN;
  assert.deepEqual([selections.self.k, selections.self.n], [2, 2], 'self-score picks the right answer twice');
  assert.equal(selections.stepScore.n, 0);
  assert.equal(selections.stepScore.value, null);
  assert.equal(selections.verifier.value, null);
});

test('refinement per round: accuracy after each round, and what each round fixed and broke', () => {
  // Each run's chosen answer per round (true = right); a shorter run stopped early.
  const journal: Record<string, boolean[]> = {
    a: [false, true, true], // fixed in round 2
    b: [true, false, false], // broken in round 2
    c: [false, false, true], // fixed in round 3
    d: [true], // right at once, stopped
    e: [false, false], // never fixed, stopped after round 2
    f: [true, true, false], // broken in round 3
  };
  const items = Object.entries(journal).map(([id, rounds]) => ({
    ...item(rounds.map((ok) => ({ chosen: 0, candidates: [cand(ok ? '1/2' : '3', ok)] }))),
    id,
  }));
  const m = summarizeProve(items);
  const row = (r: (typeof m.perIteration)[number]) => [
    r.round,
    `${r.accuracy.k}/${r.accuracy.n}`,
    r.change && [
      r.change.refined,
      `${r.change.fixed.k}/${r.change.fixed.n}`,
      `${r.change.broke.k}/${r.change.broke.n}`,
    ],
    r.stillRefining,
  ];
  assert.deepEqual(m.perIteration.map(row), [
    [1, '3/6', null, 5],
    // Round 2 ran on a, b, c, e, f: of the wrong ones (a, c, e) it fixed a; of the right (b, f) it broke b.
    [2, '3/6', [5, '1/3', '1/2'], 4],
    // Round 3 ran on a, b, c, f: it fixed c (of b, c) and broke f (of a, f); d and e keep their answers.
    [3, '3/6', [4, '1/2', '1/2'], 0],
  ]);
  // The held-out side is the same figures over the held-out problems only.
  const held = Object.keys(journal).filter((id) => splitOf(id) === 'held-out');
  assert.ok(held.length > 0 && held.length < 6, `held-out runs: ${held.join(', ')}`);
  assert.ok(m.perIterationHeldOut.every((r) => r.accuracy.n === held.length));
  assert.equal(m.perIterationHeldOut[0].accuracy.k, held.filter((id) => journal[id][0]).length);
  // The summary says it in words.
  const text = evalSummaryText({
    kind: 'prove',
    metrics: m,
    model: { name: 'm' },
    dataset: { path: 'd.jsonl' },
    items: { finished: 6, selected: 6, failed: [] },
    complete: true,
    timing: { secondsPerItem: null, cpuSecondsPerItem: null, machine: { cores: 2, loadAverage: null } },
  } as unknown as EvalResult);
  assert.match(text, /round 2 \(5 runs refined\): fixed 1\/3 wrong answers, broke 1\/2 right ones/);
  assert.match(text, /round 3 \(4 runs refined\): fixed 1\/2 wrong answers, broke 1\/2 right ones/);
});
