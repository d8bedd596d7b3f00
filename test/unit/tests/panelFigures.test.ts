/**
 * The "Reason & Generate Tests" panel and the Test Explorer never show two figures that contradict
 * each other for the same run (issue 42). Runs are real: the five-stage pipeline with a scripted
 * model for known content, its tests run in the real sandbox; the view is the one the panel gets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findFunctions } from '../../../src/core/tests/functions';
import { runFiveStages, type FiveStageRun } from '../../../src/core/tests/pipeline';
import { createSandboxSuiteRunner } from '../../../src/core/tests/sandboxRunner';
import { toView } from '../../../src/vscode/features/tests/runView';
import { explorerOutcome, testsFigures } from '../../../src/shared/testsFigures';
import { exampleOutcome, exampleOutcomes } from '../../../src/core/tests/evidence';
import type { CodeRunView } from '../../../src/shared/protocols/tests';
import { asksForTests, scriptedModel } from '../helpers/scriptedModel';

const runner = createSandboxSuiteRunner({ perTestTimeoutMs: 5000, suiteTimeoutMs: 60_000, memoryMb: 512 });

const USER =
  'def sort_rows(rows):\n    """Sort the rows by their sums."""\n    return sorted(rows, key=sum)\n';
const MISREAD = '```python\ndef sort_rows(rows):\n    return [sorted(r) for r in rows]\n```';
const RIGHT = '```python\ndef sort_rows(rows):\n    return sorted(rows, key=lambda r: sum(r))\n```';
// One test that follows the misreading, two right ones, one that raises, one repeated.
const TESTS = [
  '```python',
  'assert sort_rows([[3, 1], [2]]) == [[1, 3], [2]]',
  'assert sort_rows([]) == []',
  'assert sort_rows([[5]]) == [[5]]',
  'assert sort_rows(None) == []',
  'assert sort_rows([]) == []',
  '```',
].join('\n');

/** The view the panel starts from before a run's result replaces it (as the glue builds it). */
const EMPTY: CodeRunView = {
  functionName: 'sort_rows',
  file: 'rows.py',
  language: 'python',
  model: 'scripted',
  phase: 'reasoning',
  stages: [],
  verdicts: [],
};

/** Every pair of shown figures that must agree, as a person would point at a contradiction. */
function contradictions(run: FiveStageRun): string[] {
  const view = toView(run, EMPTY);
  const f = testsFigures(view);
  const found: string[] = [];
  if (f.total !== run.accumulatedSuite.length)
    found.push(`heading says ${f.total} tests, the suite has ${run.accumulatedSuite.length}`);
  const s = view.scores;
  if (s && f.run !== f.total) found.push(`${f.run} tests have a verdict, the stages show ${f.total}`);
  if (!s && f.run) found.push('verdicts shown for a suite that never ran');
  if (!s) {
    if (f.validity !== null || f.generatorReward !== null)
      found.push('rewards shown for a suite that never ran');
    return found;
  }
  if (s.total !== f.total) found.push(`validity "of ${s.total}" vs heading ${f.total}`);
  if (s.valid !== f.valid) found.push(`validity counts ${s.valid} valid, ${f.valid} rows are ticked`);
  if (Math.abs(s.validity - f.valid / Math.max(1, f.total)) > 1e-9)
    found.push(`validity ${s.validity} vs ${f.valid}/${f.total}`);
  const reward = f.valid === 0 ? 0.5 : f.generatedPassesValid / f.valid;
  if (Math.abs(s.generatorReward - reward) > 1e-9)
    found.push(
      `generator reward ${s.generatorReward} vs ${f.generatedPassesValid} of ${f.valid} valid tests passed`,
    );
  // The support sentence names the same reward, valid count and total as the cards and the heading.
  const support = s.support ?? '';
  const on =
    /generator reward ([\d.]+) (?:on (\d+) valid tests? of (\d+)|\(neutral: no valid test of (\d+)\))/.exec(
      support,
    );
  if (!on) found.push(`support without its tests: "${support}"`);
  else {
    if (on[1] !== s.generatorReward.toFixed(2))
      found.push(`support's reward ${on[1]} vs card ${s.generatorReward.toFixed(2)}`);
    const valid = on[2] === undefined ? 0 : Number(on[2]);
    if (valid !== f.valid) found.push(`support "on ${valid} valid" vs ${f.valid} ticked rows`);
    if (Number(on[3] ?? on[4]) !== f.total)
      found.push(`support "of ${on[3] ?? on[4]}" vs heading ${f.total}`);
  }
  if (!support.includes(`test-writer reward ${s.testWriterReward.toFixed(2)} on ${f.total} test`))
    found.push(`support's test-writer reward vs card ${s.testWriterReward.toFixed(2)} on ${f.total}`);
  // The user's column, the lists under the rewards and the Test Explorer count the same tests.
  const column = f.onYourFunction;
  if (f.confirmed.length !== (column['fails-confirmed'] ?? 0))
    found.push(
      `${f.confirmed.length} confirmed failures listed, the column says ${column['fails-confirmed'] ?? 0}`,
    );
  if (f.unconfirmed.length !== (column.unconfirmed ?? 0))
    found.push(`${f.unconfirmed.length} expectations listed, the column says ${column.unconfirmed ?? 0}`);
  if (f.disagreements !== s.disagreements.length)
    found.push(`${f.disagreements} disagreements counted, ${s.disagreements.length} listed`);
  if (f.explorer.passed !== (column.passes ?? column.passed ?? 0))
    found.push(
      `Test Explorer passes ${f.explorer.passed}, the column says ${column.passes ?? column.passed ?? 0}`,
    );
  if (f.explorer.skipped !== f.unconfirmed.length)
    found.push(
      `Test Explorer skips ${f.explorer.skipped}, ${f.unconfirmed.length} expectations are unconfirmed`,
    );
  for (const v of view.verdicts) {
    const red = ['failed', 'errored'].includes(explorerOutcome(v.onUser, v.verdict));
    if (v.verdict === 'unconfirmed' && red)
      found.push(`${v.name}: unconfirmed in the panel, red in the Test Explorer`);
    if (v.verdict === 'fails-confirmed' && !red)
      found.push(`${v.name}: a confirmed failure not red in the Test Explorer`);
  }
  if (f.explorer.passed + f.explorer.failed + f.explorer.errored + f.explorer.skipped !== f.total)
    found.push('the Test Explorer shows another number of tests');
  return found;
}

async function run(
  reply: Parameters<typeof scriptedModel>[0],
  extra: Partial<Parameters<typeof runFiveStages>[0]> = {},
) {
  const [target] = await findFunctions(USER, 'python');
  return runFiveStages({ model: scriptedModel(reply), target, fileSource: USER, runSuite: runner, ...extra });
}

test('the tests panel shows one count for each figure on real runs', async () => {
  const runs: [string, FiveStageRun][] = [
    // Every implementation misreads the task alike: a confirmed failure and a test that raises.
    ['confirmed', await run((p) => (asksForTests(p) ? TESTS : MISREAD))],
    // Only the stage-5 code misreads it: the failure is an unconfirmed expectation.
    [
      'unconfirmed',
      await run((p, o) => (asksForTests(p) ? TESTS : (o.n ?? 1) > 1 ? [RIGHT, RIGHT] : MISREAD)),
    ],
    // Agreement mode with a consensus: the generated code is the reference.
    [
      'agreement',
      await run((p) => (asksForTests(p) ? TESTS : MISREAD), {
        referenceMode: 'agreement',
        agreementSamples: 3,
      }),
    ],
    // No test at all: the neutral reward and its support.
    ['no tests', await run((p) => (asksForTests(p) ? 'no tests today' : RIGHT))],
    // An untrusted workspace: the tests are generated, not run.
    ['not run', await run((p) => (asksForTests(p) ? TESTS : RIGHT), { runSuite: undefined })],
  ];
  for (const [name, r] of runs) assert.deepEqual(contradictions(r), [], name);
  // The runs cover what the checks are about.
  const [confirmed, unconfirmed, agreement, none, notRun] = runs.map(([, r]) =>
    testsFigures(toView(r, EMPTY)),
  );
  assert.ok(confirmed.confirmed.length >= 1 && confirmed.valid < confirmed.total);
  assert.ok(unconfirmed.unconfirmed.length >= 1 && unconfirmed.explorer.skipped >= 1);
  assert.equal(runs[2][1].scores?.reference, 'generated');
  assert.ok(agreement.valid > 0);
  assert.equal(none.total, 0);
  assert.equal(notRun.validity, null);
});

test('a contradiction is caught: a support sentence on other tests than the cards', async () => {
  const r = await run((p) => (asksForTests(p) ? TESTS : MISREAD));
  const lying = { ...r, scores: { ...r.scores!, valid: r.scores!.valid + 1 } };
  assert.ok(
    contradictions(lying).some((c) => /valid/.test(c)),
    contradictions(lying).join('; '),
  );
});

test('a test that does not collect on your function marks it only when the implementations back the test', () => {
  assert.equal(explorerOutcome('uncollectable', 'unconfirmed'), 'skipped');
  assert.equal(explorerOutcome('uncollectable', 'fails-confirmed'), 'errored');
  // No evidence taken (agreement mode): shown as it ran, as before.
  assert.equal(explorerOutcome('uncollectable', undefined), 'errored');
  assert.equal(explorerOutcome('failed', 'unconfirmed'), 'skipped');
  assert.equal(explorerOutcome('failed', 'fails-confirmed'), 'failed');
});

test("the panel lists the docstring examples the user's function fails, with what it returned", async () => {
  const user = [
    'def sort_rows(rows):',
    '    """Sort the rows by their sums.',
    '',
    '    >>> sort_rows([[3, 1], [2]])',
    '    [[2], [3, 1]]',
    '    >>> sort_rows([])',
    '    []',
    '    """',
    '    return [sorted(r) for r in rows]',
    '',
  ].join('\n');
  const [target] = await findFunctions(user, 'python');
  const r = await runFiveStages({
    model: scriptedModel((prompt) => (asksForTests(prompt) ? TESTS : RIGHT)),
    target,
    fileSource: user,
    runSuite: runner,
  });
  const view = toView(r, EMPTY);
  // The second example passes and is not listed; the first fails on the user's own word.
  assert.equal(view.failedExamples?.length, 1);
  assert.equal(view.failedExamples?.[0].example, 'assert sort_rows([[3, 1], [2]]) == [[2], [3, 1]]');
  assert.match(view.failedExamples?.[0].output ?? '', /returned \[\[1, 3\], \[2\]\]/);
  assert.deepEqual(contradictions(r), []);
  // The Test Explorer (and so the gutter) marks the same example failed, with the example and what
  // the function returned in its message, and the passing one passed: no red mark the panel lacks.
  const outcomes = exampleOutcomes(r.examples);
  assert.deepEqual(
    outcomes.map((o) => o.outcome),
    ['failed', 'passed'],
  );
  assert.deepEqual(
    outcomes.filter((o) => o.outcome === 'failed').map((o) => o.line),
    view.failedExamples?.map((x) => x.example),
  );
  assert.match(
    outcomes[0].message,
    /fails this example of its own docstring: assert sort_rows\(\[\[3, 1\], \[2\]\]\)/,
  );
  assert.match(outcomes[0].message, /returned \[\[1, 3\], \[2\]\]/);
  // The implementations' part of the evidence: the stage-5 code and the samples all pass it.
  assert.match(outcomes[0].message, /(\d+) of \1 generated implementations pass it/);
});

test('an example read wrongly, or holding an ellipsis, is never a red mark in the Test Explorer', () => {
  const wrong = exampleOutcome('assert f(1) == [1, 2', 'error', 'SyntaxError');
  assert.equal(wrong.outcome, 'skipped');
  assert.match(wrong.message, /Not held against your function/);
  assert.equal(exampleOutcome('assert f(1) == [1, ...]', 'failed').outcome, 'skipped');
  assert.equal(exampleOutcome('assert f(1) == 2', 'failed').outcome, 'failed');
  assert.equal(exampleOutcome('assert f(1) == 2', 'flaky').outcome, 'errored');
  assert.deepEqual(exampleOutcomes(undefined), []);
});
