import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stageBadgeText, stageBadgeTitle } from '../../../src/shared/stageBadge';

test("a stage's badge counts the tests shown and says what was dropped and why", () => {
  const dropped = [
    { line: 'assert f(1) == 2', reason: 'duplicate of line 1 (same call and expected value)' },
    { line: 'assert f(1)==2', reason: 'duplicate of a test already in the suite' },
    { line: 'Here are the tests:', reason: 'could not be parsed' },
    { line: 'assert f(9) == 3', reason: "over the stage's budget of 3 tests" },
  ];
  assert.equal(
    stageBadgeText(3, dropped),
    '3 shown · 2 duplicates dropped · 1 over the budget dropped · 1 non-test line dropped',
  );
  assert.match(stageBadgeTitle(dropped), /^dropped: assert f\(1\) == 2 — duplicate of line 1/);
  assert.equal(stageBadgeTitle(dropped).split('\n').length, 4);
});

test('a stage that dropped nothing says only how many it shows, zero included', () => {
  assert.equal(stageBadgeText(0, []), '0 shown');
  assert.equal(
    stageBadgeText(1, [
      { line: 'assert g(1) == 1', reason: 'does not match the signature: f takes 2 arguments' },
    ]),
    '1 shown · 1 wrong signature dropped',
  );
});
