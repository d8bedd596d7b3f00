import { test } from 'node:test';
import assert from 'node:assert/strict';
import { candidateFeatures, type FeatureInput } from '../../../src/core/judgment/features';
import { splitOf } from '../../../src/core/judgment/split';

const candidate = (answer: string | null, finishReason = 'eos'): FeatureInput => ({
  answer,
  selfScore: 1,
  verifierScore: 0.5,
  metaScore: null,
  stepScores: [0.9, 0.2, 0.7],
  finishReason,
});

test('agreement is the share of candidates with an equivalent final answer', () => {
  const f = candidateFeatures([candidate('\\frac{1}{2}'), candidate('0.5'), candidate('3'), candidate(null)]);
  assert.deepEqual(
    f.map((x) => x.agreement),
    [0.5, 0.5, 0.25, 0],
  );
  assert.deepEqual(
    f.map((x) => x.boxed),
    [1, 1, 1, 0],
  );
  assert.equal(f[0].weakestStep, 0.2);
  // One candidate agrees with nobody else: agreement is not measured, not a consensus of 1.
  assert.equal(candidateFeatures([candidate('3')])[0].agreement, null);
});

test('a candidate cut at its token limit is marked truncated', () => {
  const f = candidateFeatures([candidate('3', 'length'), candidate('3', 'stop'), candidate('3', 'eos')]);
  assert.deepEqual(
    f.map((x) => x.truncated),
    [1, 0, 0],
  );
});

test('the fit / held-out split is stable and splits problems about evenly', () => {
  const ids = Array.from({ length: 400 }, (_, i) => `test/algebra/${i}.json`);
  const heldOut = ids.filter((id) => splitOf(id) === 'held-out').length;
  assert.ok(heldOut > 160 && heldOut < 240, `${heldOut} of 400 held out`);
  assert.equal(splitOf('gsm8k/train/0'), splitOf('gsm8k/train/0'));
});
