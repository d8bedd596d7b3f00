import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  agreesWithExamples,
  confirms,
  consensusSets,
  evidenceText,
  exampleConfirms,
  mostSetAside,
  testEvidence,
  userVerdict,
} from '../../../src/core/tests/evidence';
import type { VerdictStatus } from '../../../src/core/tests/rewards';

const P: VerdictStatus = 'passed';
const F: VerdictStatus = 'failed';

test('implementations with identical pass vectors form one consensus set, scored size × tests passed', () => {
  const sets = consensusSets([
    [P, P, F],
    [P, P, F],
    [P, F, P],
  ]);
  assert.deepEqual(
    sets.map((s) => ({ members: s.members, passes: s.passes, score: s.score })),
    [
      { members: [0, 1], passes: [0, 1], score: 4 },
      { members: [2], passes: [0, 2], score: 2 },
    ],
  );
});

test("a test's confidence is the share of consensus score held by the sets that pass it", () => {
  const e = testEvidence(
    [
      [P, P, F],
      [P, P, F],
      [P, F, P],
    ],
    3,
  );
  assert.deepEqual(
    e.map((x) => x.confidence),
    [1, 4 / 6, 2 / 6],
  );
  assert.deepEqual(e[2].bestSet, { implementations: 1, testsPassed: 2 });
  assert.equal(e[0].implementationsPassing, 3);
  // Nothing passes anything: no evidence at all, so nothing can be confirmed.
  assert.equal(testEvidence([[F], ['error']], 1)[0].confidence, 0);
  assert.equal(testEvidence([[F], ['error']], 1)[0].bestSet, undefined);
});

test('a failure on the user function is confirmed only at the threshold; otherwise it is to review', () => {
  const [strong, weak] = testEvidence(
    [
      [P, F],
      [P, F],
      [P, P],
    ],
    2,
  );
  assert.equal(userVerdict('failed', strong, 0.75), 'fails-confirmed');
  assert.equal(userVerdict('error', weak, 0.75), 'unconfirmed');
  assert.equal(userVerdict('passed', weak, 0.75), 'passes');
  assert.equal(userVerdict('flaky', strong, 0.75), 'flaky');
  assert.equal(userVerdict('uncollectable', strong, 0.75), 'broken');
  assert.equal(
    evidenceText(weak),
    '1 of 3 generated implementations pass it; the best consensus set supporting it has 1 implementation passing 2 tests; fewer than 2 implementations agreeing cannot confirm a failure (confidence 0.50)',
  );
});

test('samples that share a misreading the specification contradicts cannot blame the user', () => {
  // Three implementations agree on test 0, which the user's function fails; all three fail the
  // docstring's example, which the user's function passes: they are set aside, nothing confirms.
  const examples = [[F], [F], [F]];
  const counted = agreesWithExamples(examples, [P]);
  assert.deepEqual(counted, [false, false, false]);
  const [e] = testEvidence([[P], [P], [P]], 1, counted);
  assert.equal(e.confidence, 0);
  assert.equal(userVerdict(F, e, 0.7), 'unconfirmed');
  assert.match(evidenceText(e), /3 more set aside: they fail an example in the specification/);
});

test('implementations that pass the examples still confirm; an example nobody passes decides nothing', () => {
  // Example 0 is passed by implementations 0 and 1; example 1 by nobody (read wrongly): ignored.
  const counted = agreesWithExamples(
    [
      [P, F],
      [P, F],
      [F, F],
    ],
    [F, F],
  );
  assert.deepEqual(counted, [true, true, false]);
  const [e] = testEvidence([[P], [P], [F]], 1, counted);
  assert.equal(e.confidence, 1);
  assert.equal(e.setAside, 1);
  assert.equal(userVerdict(F, e, 0.7), 'fails-confirmed');
  // Without examples every implementation counts, as before.
  assert.deepEqual(agreesWithExamples([[], []], []), [true, true]);
});

test('a lone implementation cannot confirm a failure, whatever its consensus score (MBPP/515)', () => {
  // Two of three implementations fail the specification's example and are set aside; the one left
  // passes a test the user's (correct) function fails. It holds the whole consensus score.
  const counted = agreesWithExamples([[P], [F], [F]], [P]);
  assert.deepEqual(counted, [true, false, false]);
  const [e] = testEvidence([[P], [P], [F]], 1, counted);
  assert.equal(e.confidence, 1);
  assert.equal(e.implementationsPassing, 1);
  assert.equal(userVerdict(F, e, 0.727), 'unconfirmed');
  assert.equal(confirms(e, 0.727), false);
  // Two agreeing implementations at the same confidence do confirm.
  const [two] = testEvidence([[P], [P], [F]], 1);
  assert.equal(two.implementationsPassing, 2);
  assert.equal(confirms({ confidence: 1, implementationsPassing: 2 }, 0.727), true);
  assert.equal(confirms({ confidence: 0.7, implementationsPassing: 3 }, 0.727), false);
  assert.match(evidenceText(e), /fewer than 2 implementations agreeing cannot confirm a failure/);
});

test('implementations that mostly fail the examples cannot confirm, however many of those left agree (MBPP/541)', () => {
  // Three of five implementations fail the example; the two left agree on a test the user's fails.
  const counted = agreesWithExamples([[P], [F], [F], [F], [P]], [P]);
  const [e] = testEvidence([[P], [F], [F], [F], [P]], 1, counted);
  assert.deepEqual([e.implementations, e.setAside, e.implementationsPassing, e.confidence], [2, 3, 2, 1]);
  assert.equal(mostSetAside(e), true);
  assert.equal(userVerdict(F, e, 0.727), 'unconfirmed');
  assert.match(evidenceText(e), /most implementations misread the task \(3 of 5 fail an example/);
  // Three left against two set aside: the same agreement confirms.
  const [more] = testEvidence([[P], [F], [F], [P], [P]], 1, [true, false, false, true, true]);
  assert.equal(mostSetAside(more), false);
  assert.equal(userVerdict(F, more, 0.727), 'fails-confirmed');
  assert.doesNotMatch(evidenceText(more), /misread/);
});

test("a docstring example counts against the user's function only as a plain failure, never with a doctest ellipsis", () => {
  const line = 'assert f([1, 2]) == [2, 1]';
  assert.equal(exampleConfirms('failed', line), true);
  // 'error': the example's expected side did not evaluate (a misread example), or the run broke.
  assert.equal(exampleConfirms('error', line), false);
  assert.equal(exampleConfirms('uncollectable', line), false);
  assert.equal(exampleConfirms('timeout', line), false);
  assert.equal(exampleConfirms('flaky', line), false);
  assert.equal(exampleConfirms('passed', line), false);
  assert.equal(exampleConfirms(undefined, line), false);
  assert.equal(exampleConfirms('failed', 'assert f(30) == [1, 2, ...]'), false);
});
