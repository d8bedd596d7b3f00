/**
 * The five-stage pipeline on the real sandbox (issue 19, items 2, 3 and 7). A scripted model
 * stands in for the test writer and generator so that the suite's content is known; the code
 * runs for real in the oracle runner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findFunctions } from '../../../src/core/tests/functions';
import { runFiveStages, type FiveStageOptions, type FiveStageRun } from '../../../src/core/tests/pipeline';
import type { ModelBackend } from '../../../src/core/model/types';
import { DEFAULT_CONFIRM_THRESHOLD } from '../../../src/core/tests/evidence';
import { createSandboxSuiteRunner } from '../../../src/core/tests/sandboxRunner';
import { asksForTests, scriptedModel } from '../helpers/scriptedModel';

const runner = createSandboxSuiteRunner({ perTestTimeoutMs: 5000, suiteTimeoutMs: 60_000, memoryMb: 512 });

// The user's function is right: rows sorted by their sums. A generated implementation that misread
// the task sorts every row instead (the case of issue 19, item 3).
const USER =
  'def test_sort_rows(rows):\n    """Sort the rows by their sums."""\n    return sorted(rows, key=sum)\n';
const MISREAD = '```python\ndef test_sort_rows(rows):\n    return [sorted(r) for r in rows]\n```';
const RIGHT = '```python\ndef test_sort_rows(rows):\n    return sorted(rows, key=lambda r: sum(r))\n```';

// Tests that follow the misreading (wrong for the user's function), written again at every stage.
const TESTS = [
  '```python',
  'assert test_sort_rows([[3, 1], [2]]) == [[1, 3], [2]]',
  'assert test_sort_rows( [[3,1],[2]] )==[[1, 3], [2]]',
  'assert test_sort_rows([]) == []',
  'assert test_sort_rows([[5]]) == [[5]]',
  '```',
].join('\n');

/** The user's function with a docstring example in the "sums" order, above the given body. */
const withExample = (body: string): string =>
  [
    'def test_sort_rows(rows):',
    '    """Sort the rows by their sums.',
    '',
    '    >>> test_sort_rows([[3, 1], [2]])',
    '    [[2], [3, 1]]',
    '    """',
    `    ${body}`,
    '',
  ].join('\n');

/** Runs the five stages on the one function of `source` (USER by default) in the real sandbox. */
async function fiveStages(
  model: ModelBackend,
  source = USER,
  options: Partial<FiveStageOptions> = {},
): Promise<FiveStageRun> {
  const [fn] = await findFunctions(source, 'python');
  return runFiveStages({ model, target: fn, fileSource: source, runSuite: runner, ...options });
}

test('identical tests are admitted once across all five stages, with the duplicates said', async () => {
  const model = scriptedModel((prompt) => (asksForTests(prompt) ? TESTS : RIGHT));
  const run = await fiveStages(model);
  assert.deepEqual(
    run.accumulatedSuite.map((t) => t.assertion?.line),
    [
      'assert test_sort_rows([[3, 1], [2]]) == [[1, 3], [2]]',
      'assert test_sort_rows([]) == []',
      'assert test_sort_rows([[5]]) == [[5]]',
    ],
  );
  assert.ok(run.accumulatedSuite.every((t) => t.stage === 1));
  assert.match(run.stages[0].rejected[0].reason, /duplicate of line 1/);
  for (const stage of run.stages.slice(1)) {
    assert.equal(stage.tests.length, 0);
    assert.equal(stage.rejected.filter((r) => /duplicate/.test(r.reason)).length, 4);
  }
});

test('a function named test_* is judged like any other (never collected as a test)', async () => {
  const model = scriptedModel((prompt) => (asksForTests(prompt) ? TESTS : RIGHT));
  const run = await fiveStages(model);
  assert.deepEqual(
    run.verdicts.map((v) => v.onUser),
    ['failed', 'passed', 'passed'],
  );
  assert.ok(run.verdicts.every((v) => v.inProcess === false));
});

test('by default the user function is the reference: tests failing on it are disagreements with evidence', async () => {
  const model = scriptedModel((prompt) => (asksForTests(prompt) ? TESTS : MISREAD));
  const run = await fiveStages(model);
  assert.equal(run.referenceMode, 'user');
  const s = run.scores!;
  assert.equal(s.reference, 'user');
  assert.equal(s.valid, 2);
  assert.deepEqual(
    s.disagreements.map((d) => [d.input, d.onUser, d.samplesPassing, d.samples, d.verdict]),
    // The stage-5 code and both independent samples misread the task alike: strong evidence.
    [['test_sort_rows([[3, 1], [2]])', 'failed', 3, 3, 'fails-confirmed']],
  );
  assert.match(s.disagreements[0].userOutput ?? '', /returned \[\[2\], \[3, 1\]\]/);
});

test('a failure the independent implementations do not back is an unconfirmed expectation, with its evidence', async () => {
  // The stage-5 code misreads the task; the two samples written from the specification alone do not.
  const model = scriptedModel((prompt, options) => {
    if (asksForTests(prompt)) return TESTS;
    return (options.n ?? 1) > 1 ? [RIGHT, RIGHT] : MISREAD;
  });
  const run = await fiveStages(model);
  assert.deepEqual(
    run.verdicts.map((v) => v.verdict),
    ['unconfirmed', 'passes', 'passes'],
  );
  const e = run.verdicts[0].evidence!;
  assert.equal(e.implementationsPassing, 1);
  // Sets: the misreading alone passing 3 tests (3), both samples passing 2 (4): 3 / 7.
  assert.equal(e.confidence.toFixed(3), (3 / 7).toFixed(3));
  assert.equal(run.confirmThreshold, DEFAULT_CONFIRM_THRESHOLD);
});

test('agreement mode trusts generated code only when the independent samples agree', async () => {
  // Samples that disagree with each other: the user's function stays the reference.
  const split = scriptedModel((prompt, options) => {
    if (asksForTests(prompt)) return TESTS;
    // The independent samples come as one batch: one right, one misread.
    if ((options.n ?? 1) > 1) return [RIGHT, MISREAD];
    return MISREAD;
  });
  const run = await fiveStages(split, USER, { referenceMode: 'agreement', agreementSamples: 3 });
  assert.equal(run.samples?.length, 2, 'two more implementations were sampled');
  assert.equal(run.scores!.reference, 'user');
  assert.match(run.scores!.referenceReason, /needs 3 independent implementations.*2 of 3 agree/);
  // Three samples that all misread the task the same way do make a consensus.
  const same = scriptedModel((prompt) => (asksForTests(prompt) ? TESTS : MISREAD));
  const agreed = await fiveStages(same, USER, { referenceMode: 'agreement', agreementSamples: 3 });
  assert.equal(agreed.scores!.reference, 'generated');
  assert.equal(agreed.scores!.disagreements[0].samplesPassing, 3);
});

test("a docstring example the user's function fails is a confirmed failure, whatever the implementations say", async () => {
  // The user's function sorts each row, against its own example; every implementation agrees with it.
  const user = withExample('return [sorted(r) for r in rows]');
  const model = scriptedModel((prompt, options) => {
    if (asksForTests(prompt)) return TESTS;
    return (options.n ?? 1) > 1 ? [MISREAD, MISREAD] : MISREAD;
  });
  const run = await fiveStages(model, user);
  assert.deepEqual(run.examples?.tests, ['assert test_sort_rows([[3, 1], [2]]) == [[2], [3, 1]]']);
  assert.deepEqual(run.examples?.onUser, ['failed']);
  assert.deepEqual(run.examples?.failsConfirmed, [true]);
  assert.match(run.examples?.userOutput?.[0] ?? '', /returned \[\[1, 3\], \[2\]\]/);
  // The implementations fail it too: an example nothing passes decides nothing about which of them
  // count (agreesWithExamples), but it is still the user's own word against the user's function.
  assert.deepEqual(run.examples?.implementationsCounted, [true, true, true]);
  assert.deepEqual(run.examples?.onImplementations, [['failed'], ['failed'], ['failed']]);
});

test("the last stage's answer ends at its code block's closing fence, and the block is closed again", async () => {
  const model = scriptedModel((prompt, options) => {
    if (asksForTests(prompt)) return TESTS;
    // Where the stop sequence was asked for, the backend cuts it and what follows.
    return options.stop?.includes('\n```\n') ? RIGHT.slice(0, -'```'.length) : RIGHT;
  });
  const run = await fiveStages(model);
  const generatorCalls = model.calls.filter((c) => !asksForTests(c.prompt) && (c.options.n ?? 1) === 1);
  assert.deepEqual(
    generatorCalls.map((c) => c.options.stop ?? null),
    [null, null, null, null, ['\n```\n']],
  );
  assert.ok(run.stages[4].reasoning.endsWith('\n```'), run.stages[4].reasoning);
  assert.match(run.generatedCode, /return sorted\(rows, key=lambda r: sum\(r\)\)\s*$/);
});

test('when the examples set aside all but one implementation, they are sampled again shown the failed example', async () => {
  const user = withExample('return sorted(rows, key=sum)');
  // A mutant-like test the user's function fails and a right implementation passes.
  const tests = ['```python', 'assert test_sort_rows([[9], [1, 1]]) == [[9], [1, 1]]', '```'].join('\n');
  const repairs: string[] = [];
  const model = scriptedModel((prompt, options) => {
    if (asksForTests(prompt)) return tests;
    if (prompt.includes('An earlier attempt did not do what')) {
      repairs.push(prompt);
      return Array.from({ length: options.n ?? 1 }, () => RIGHT);
    }
    return (options.n ?? 1) > 1 ? [MISREAD, MISREAD] : MISREAD;
  });
  const run = await fiveStages(model, user);
  assert.equal(repairs.length, 1);
  assert.match(repairs[0], /assert test_sort_rows\(\[\[3, 1\], \[2\]\]\) == \[\[2\], \[3, 1\]\]/);
  assert.match(repairs[0], /the attempt: test_sort_rows\(\[\[3, 1\], \[2\]\]\) returned \[\[1, 3\], \[2\]\]/);
  assert.deepEqual({ ...run.repair, ms: 0 }, { setAside: 3, sampled: 3, counted: 3, ms: 0 });
  assert.equal(run.samples?.length, 5);
  assert.deepEqual(run.examples?.implementationsCounted, [false, false, false, true, true, true]);
  // The test is wrong (9 > 2): the three repaired implementations agree with the user's function.
  assert.equal(run.verdicts[0].onUser, 'failed');
  assert.equal(run.verdicts[0].evidence?.implementationsPassing, 0);
  assert.equal(run.verdicts[0].verdict, 'unconfirmed');
});

test('no repair round when two implementations already pass the examples, or when it is turned off', async () => {
  const user = withExample('return sorted(rows, key=sum)');
  const reply = (right: number) => (prompt: string, options: { n?: number }) => {
    if (asksForTests(prompt)) return TESTS;
    if (prompt.includes('An earlier attempt did not do what')) throw new Error('no repair expected');
    return (options.n ?? 1) > 1 ? [right > 1 ? RIGHT : MISREAD, MISREAD] : RIGHT;
  };
  const two = await fiveStages(scriptedModel(reply(2)), user);
  assert.equal(two.repair, undefined);
  assert.deepEqual(two.examples?.implementationsCounted, [true, true, false]);
  const off = await fiveStages(scriptedModel(reply(1)), user, { repairSetAside: false });
  assert.equal(off.repair, undefined);
  assert.equal(off.samples?.length, 2);
});
