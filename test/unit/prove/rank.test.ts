import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rankCandidates } from '../../../src/core/prove/rank';
import type { CandidateRecord } from '../../../src/core/prove/runSchema';

function candidate(
  index: number,
  self: number | null,
  verifier: number | null,
  prm: number | null,
): CandidateRecord {
  return {
    index,
    parsed: { selfScore: self },
    verifier: verifier === null ? null : { score: verifier },
    stepScores: prm === null ? null : { solutionScore: prm },
  } as unknown as CandidateRecord;
}

test('ranking by each key, with missing scores last and the other keys breaking ties', () => {
  const cs = [
    candidate(0, 1, 0.5, 0.2),
    candidate(1, 0.5, 0.5, 0.9),
    candidate(2, null, 1, null),
    candidate(3, 0, null, 0.5),
  ];
  assert.deepEqual(rankCandidates(cs, 'verifier'), [2, 1, 0, 3]);
  assert.deepEqual(rankCandidates(cs, 'prm'), [1, 3, 0, 2]);
  assert.deepEqual(rankCandidates(cs, 'self'), [0, 1, 3, 2]);
});

test('full ties keep generation order', () => {
  assert.deepEqual(rankCandidates([candidate(0, 1, 1, 1), candidate(1, 1, 1, 1)], 'verifier'), [0, 1]);
});
