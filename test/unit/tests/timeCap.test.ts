/**
 * A generated implementation that runs out of time on IMPLEMENTATION_MAX_TIMEOUTS tests is run on
 * no further test: the rest read as timeouts that say why, the run records it, and the time a
 * looping sample costs stops growing with the suite. The user's function is never stopped early.
 * Real sandbox runs (short per-test limits keep them quick).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findFunctions } from '../../../src/core/tests/functions';
import { IMPLEMENTATION_MAX_TIMEOUTS, runFiveStages } from '../../../src/core/tests/pipeline';
import { createSandboxSuiteRunner } from '../../../src/core/tests/sandboxRunner';
import { asksForTests, scriptedModel } from '../helpers/scriptedModel';

const LIMIT_MS = 400;
const runner = createSandboxSuiteRunner({
  perTestTimeoutMs: LIMIT_MS,
  suiteTimeoutMs: 60_000,
  memoryMb: 512,
});

const USER = [
  'def double(n):',
  '    """Twice n.',
  '',
  '    >>> double(2)',
  '    4',
  '    """',
  '    return 2 * n',
  '',
].join('\n');
const LOOPS = '```python\ndef double(n):\n    while True:\n        pass\n```';
const RIGHT = '```python\ndef double(n):\n    return n + n\n```';
const TESTS = ['```python', ...[1, 3, 5, 7, 9, 11].map((n) => `assert double(${n}) == ${2 * n}`), '```'].join(
  '\n',
);

test('a looping implementation is stopped after two timeouts; the user function runs every test', async () => {
  const [target] = await findFunctions(USER, 'python');
  const run = await runFiveStages({
    model: scriptedModel((p, o) => (asksForTests(p) ? TESTS : (o.n ?? 1) > 1 ? [RIGHT, RIGHT] : LOOPS)),
    target,
    fileSource: USER,
    runSuite: runner,
  });
  const tests = run.accumulatedSuite.length;
  assert.equal(tests, 6);
  // Six tests and one example: the stage-5 code ran into the limit on two, the other five never ran.
  assert.deepEqual(run.timeCapped, [tests + 1 - IMPLEMENTATION_MAX_TIMEOUTS, 0, 0]);
  assert.ok(run.verdicts.every((v) => v.onGenerated === 'timeout'));
  assert.ok(run.verdicts.every((v) => v.onUser === 'passed'));
  // The looping code fails the example, so it is set aside and vouches for nothing.
  assert.deepEqual(run.examples?.implementationsCounted, [false, true, true]);
});

test('the cap is what saves the time: the same looping code, with and without it', async () => {
  const [target] = await findFunctions(USER, 'python');
  const suite = (
    await runFiveStages({
      model: scriptedModel((p) => (asksForTests(p) ? TESTS : RIGHT)),
      target,
      fileSource: USER,
    })
  ).accumulatedSuite;
  const code = LOOPS.replace(/```(python)?\n?/g, '');
  const timed = async (maxTimeouts?: number) => {
    const t0 = Date.now();
    const r = await runner({ language: 'python', code, tests: suite, maxTimeouts });
    return { ms: Date.now() - t0, r };
  };
  const capped = await timed(IMPLEMENTATION_MAX_TIMEOUTS);
  const full = await timed();
  assert.equal(capped.r.timeCapped, suite.length - IMPLEMENTATION_MAX_TIMEOUTS);
  assert.equal(full.r.timeCapped, undefined);
  assert.ok(capped.r.verdicts.every((v) => v.status === 'timeout'));
  assert.match(
    capped.r.verdicts.at(-1)?.output ?? '',
    /Not run: this code had already run out of time on 2 calls/,
  );
  // Without the cap every call waits out its limit (two runs of each); with it, two calls once.
  assert.ok(
    full.ms - capped.ms > (suite.length - IMPLEMENTATION_MAX_TIMEOUTS) * LIMIT_MS,
    `${capped.ms} vs ${full.ms} ms`,
  );
});
