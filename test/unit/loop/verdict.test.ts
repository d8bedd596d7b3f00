import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairedDifference } from '../../../src/core/loop/bestOfN';
import { pairedStepAuroc, scorerVerdict } from '../../../src/core/loop/verdict';

/** 40 solutions of 5 steps; the 4th step of every other solution is wrong. */
function labelled(score: (wrong: boolean, s: number, i: number) => number) {
  return Array.from({ length: 40 }, (_, s) => {
    const ratings: (1 | -1)[] = [1, 1, 1, s % 2 ? -1 : 1, 1];
    return { id: `sol-${s}`, ratings, scores: ratings.map((r, i) => score(r === -1, s, i)) };
  });
}
// A scorer that sees the wrong steps, and one that scores by position (no information).
const seeing = labelled((wrong, s, i) => (wrong ? 0.2 : 0.8) + ((s * 7 + i) % 10) / 100);
const blind = labelled((_, s, i) => ((s * 13 + i * 7) % 17) / 17);

const selections = (prm: boolean[], other: boolean[]) => pairedDifference(prm, other);
const right = (k: number, n = 100) => Array.from({ length: n }, (_, i) => i < k);

test('paired step AUROC reads both scorers on the same labelled steps', () => {
  const p = pairedStepAuroc(seeing, blind);
  assert.equal(p.steps, 200);
  assert.equal(p.first, 1);
  assert.ok(p.second !== null && p.second > 0.3 && p.second < 0.7, `blind scorer: ${p.second}`);
  assert.ok(p.interval && p.interval.low > 0, 'a perfect scorer against a blind one is clearly better');
  // A solution one run did not score is left out of both figures.
  const partial = pairedStepAuroc(seeing.slice(0, 10), blind);
  assert.equal(partial.steps, 50);
  // Swapping the scorers flips the sign.
  const swapped = pairedStepAuroc(blind, seeing);
  assert.ok(swapped.difference !== null && Math.abs(swapped.difference + p.difference!) < 1e-12);
});

test('without wrong steps there is no AUROC to compare, and the verdict says so', () => {
  const allRight = seeing.filter((s) => !s.ratings.includes(-1));
  const p = pairedStepAuroc(allRight, allRight);
  assert.equal(p.difference, null);
  const v = scorerVerdict({
    stepAuroc: p,
    bestOfN: {
      differences: {
        prmVsSelf: selections(right(30), right(20)),
        prmVsSingle: selections(right(30), right(20)),
        prmVsMajority: selections(right(30), right(20)),
      },
    },
  });
  assert.equal(v.use, false);
  assert.match(v.summary, /not measured: step AUROC/);
});

test('a PRM that beats the verifier and loses no best-of-N comparison is recommended', () => {
  const v = scorerVerdict({
    stepAuroc: pairedStepAuroc(seeing, blind),
    bestOfN: {
      differences: {
        prmVsSelf: selections(right(30), right(20)),
        prmVsSingle: selections(right(25), right(25)),
        prmVsMajority: selections(right(20), right(30)),
      },
    },
  });
  assert.equal(v.use, true, v.summary);
  assert.deepEqual(
    v.comparisons.map((c) => [c.against, c.outcome]),
    [
      ['the verifier', 'better'],
      ['the self-score pick', 'better'],
      ['a single sample', 'tie'],
    ],
  );
  assert.match(v.summary, /^Use the new PRM: step AUROC \+0\.\d{3} against the verifier/);
  assert.match(v.summary, /within noise/);
});

test('a PRM below the verifier, or below the self-score pick, is not recommended, and the summary says where it lost', () => {
  const bestOfN = {
    differences: {
      prmVsSelf: selections(right(15), right(12)),
      prmVsSingle: selections(right(15), right(15)),
      prmVsMajority: selections(right(15), right(19)),
    },
  };
  const worseSteps = scorerVerdict({ stepAuroc: pairedStepAuroc(blind, seeing), bestOfN });
  assert.equal(worseSteps.use, false);
  assert.match(
    worseSteps.summary,
    /^Keep the current step scorer: .*step AUROC −0\.\d{3} against the verifier/,
  );
  assert.doesNotMatch(worseSteps.summary, /self-score pick/, 'only the comparisons it lost are named');

  const worsePicks = scorerVerdict({
    stepAuroc: pairedStepAuroc(seeing, blind),
    bestOfN: { differences: { ...bestOfN.differences, prmVsSelf: selections(right(10), right(14)) } },
  });
  assert.equal(worsePicks.use, false);
  assert.match(worsePicks.summary, /best-of-N accuracy −4 points against the self-score pick/);

  // A tie with the verifier is not a reason to switch.
  const tie = scorerVerdict({ stepAuroc: pairedStepAuroc(seeing, seeing), bestOfN });
  assert.equal(tie.use, false);
  assert.match(tie.summary, /step AUROC \+0\.000 against the verifier/);
});

test('with a PRM already in use, the new one must beat that PRM, not only the verifier', () => {
  const bestOfN = (current: [number, number]) => ({
    differences: {
      prmVsSelf: selections(right(20), right(15)),
      prmVsSingle: selections(right(20), right(18)),
      prmVsMajority: selections(right(20), right(20)),
      prmVsCurrent: selections(right(current[0]), right(current[1])),
    },
  });
  // Better than the verifier, worse than the PRM in use: keep that PRM.
  const behindCurrent = scorerVerdict({
    stepAuroc: pairedStepAuroc(seeing, blind),
    current: { stepAuroc: pairedStepAuroc(blind, seeing) },
    bestOfN: bestOfN([20, 20]),
  });
  assert.equal(behindCurrent.use, false);
  assert.match(
    behindCurrent.summary,
    /^Keep the current PRM: .*step AUROC −0\.\d{3} against the current PRM/,
  );
  assert.doesNotMatch(
    behindCurrent.summary,
    /against the verifier/,
    'the verifier comparison, won, does not decide',
  );

  // Better than the PRM in use on steps and picks: use it, whatever the verifier comparison says.
  const ahead = scorerVerdict({
    stepAuroc: pairedStepAuroc(seeing, seeing),
    current: { stepAuroc: pairedStepAuroc(seeing, blind) },
    bestOfN: bestOfN([20, 17]),
  });
  assert.equal(ahead.use, true, ahead.summary);
  assert.deepEqual(
    ahead.comparisons.map((c) => [c.against, c.outcome]),
    [
      ['the current PRM', 'better'],
      ['the verifier', 'tie'],
      ['the self-score pick', 'better'],
      ['a single sample', 'better'],
      ["the current PRM's pick", 'better'],
    ],
  );

  // Ahead on steps but picking worse than the PRM in use: keep it.
  const worsePicks = scorerVerdict({
    stepAuroc: pairedStepAuroc(seeing, blind),
    current: { stepAuroc: pairedStepAuroc(seeing, blind) },
    bestOfN: bestOfN([18, 20]),
  });
  assert.equal(worsePicks.use, false);
  assert.match(worsePicks.summary, /best-of-N accuracy −2 points against the current PRM's pick/);

  // The comparison with the PRM in use could not be made (no scores): no recommendation.
  const unmeasured = scorerVerdict({
    stepAuroc: pairedStepAuroc(seeing, blind),
    current: { stepAuroc: null },
    bestOfN: bestOfN([20, 17]),
  });
  assert.equal(unmeasured.use, false);
  assert.match(unmeasured.summary, /not measured: step AUROC against the current PRM/);
});
