import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findFunctions } from '../../../src/core/tests/functions';
import { runFiveStages, testWritingText, type SuiteRunner } from '../../../src/core/tests/pipeline';
import { loadStageChain } from '../../../src/core/tests/stages';
import { writeStageTests } from '../../../src/core/tests/testWriter';
import { lastMessage, ScriptedBackend } from '../prove/scriptedBackend';
import type { ChatMessage } from '../../../src/core/model/types';

const SOURCE = 'def add(a, b):\n    """Add two numbers."""\n    return a + b\n';
const LINES = [
  'assert add(1, 2) == 3',
  'assert add(1, 2 == 3', // not valid Python: must never reach the sandbox
  'assert add(0, 0) == 0',
  'assert add( 1,2 )==3', // the first line again, formatted differently
  'assert add(-1, 1) == 0',
  'assert add(2, 2) == 4',
].join('\n');

async function target() {
  const [fn] = await findFunctions(SOURCE, 'python');
  return fn;
}

/** A model that answers the test writer with `LINES` (as a plan when it can) and reasons in prose. */
function model(plans: boolean) {
  return new ScriptedBackend(
    ({ input }) => [lastMessage(input).startsWith('Now write tests') ? LINES : 'Add the numbers.'],
    undefined,
    plans ? () => [{ tests: LINES }] : undefined,
  );
}

test('the test writer runs an assertion-lines plan bounded by the stage budget', async () => {
  const backend = model(true);
  const writing = await writeStageTests({
    model: backend,
    messages: [{ role: 'user', content: 'Now write tests for add.' }],
    target: { name: 'add', language: 'python' },
    stage: 1,
    budget: 3,
    constrained: true,
    maxTokens: 256,
    maxTokensPerLine: 48,
    seen: new Set(),
    taken: new Set(),
  });
  const [segment] = backend.planCalls[0].plan;
  assert.deepEqual(segment, {
    kind: 'assertions',
    name: 'tests',
    language: 'python',
    functionName: 'add',
    maxLines: 3,
    maxTokensPerLine: 48,
  });
  assert.equal(backend.calls.length, 0, 'no free generation');
  assert.equal(writing.constrained, true);
  // Of the three lines the plan allowed, the invalid one is rejected by the parser.
  assert.deepEqual(
    writing.tests.map((t) => t.assertion?.line),
    ['assert add(1, 2) == 3', 'assert add(0, 0) == 0'],
  );
  assert.match(writing.rejected.map((r) => r.reason).join('\n'), /not valid Python/);
});

test('free fallback: the output is parsed, duplicates dropped, and the stage adds at most its budget', async () => {
  const writing = await writeStageTests({
    model: model(false),
    messages: [{ role: 'user', content: 'Now write tests for add.' }],
    target: { name: 'add', language: 'python' },
    stage: 2,
    budget: 2,
    constrained: false,
    maxTokens: 256,
    maxTokensPerLine: 48,
    seen: new Set(),
    taken: new Set(),
  });
  assert.equal(writing.constrained, false);
  assert.deepEqual(
    writing.tests.map((t) => t.assertion?.line),
    ['assert add(1, 2) == 3', 'assert add(0, 0) == 0'],
  );
  const reasons = writing.rejected.map((r) => `${r.line} :: ${r.reason}`).join('\n');
  assert.match(reasons, /add\( 1,2 \)==3 :: duplicate/);
  assert.match(reasons, /add\(-1, 1\) == 0 :: over the stage's budget of 2 tests/);
});

test('five stages: each stage’s tests are parsed first, none twice, at most the budget each', async () => {
  const received: string[] = [];
  const runSuite: SuiteRunner = async ({ tests }) => {
    received.push(...tests.map((t) => t.assertion?.line ?? t.source));
    return { verdicts: tests.map((t) => ({ name: t.name, status: 'passed' as const })) };
  };
  const run = await runFiveStages({
    model: model(true),
    target: await target(),
    fileSource: SOURCE,
    runSuite,
  });
  assert.deepEqual(run.testWriting, {
    mode: 'constrained',
    planMode: 'native',
    assertionGrammar: null,
    fallbackReason: null,
  });
  for (const stage of run.stages) {
    assert.ok(stage.tests.length <= stage.stage.testBudget);
    assert.equal(stage.testWriter.constrained, true);
  }
  // Stage 1 admits two tests; the plan offers every later stage the same first lines: duplicates.
  assert.equal(run.accumulatedSuite.length, 2);
  assert.ok(received.length > 0 && received.every((line) => line !== 'assert add(1, 2 == 3'));
});

test('five stages are one conversation: each request extends the one before, and no test reaches the generator', async () => {
  const backend = new ScriptedBackend(
    ({ callIndex }) => [`Reasoning of stage ${callIndex + 1}.`],
    undefined,
    () => [{ tests: LINES }],
  );
  await runFiveStages({ model: backend, target: await target(), fileSource: SOURCE });
  const generator = backend.calls.map((c) => c.input as ChatMessage[]);
  const testWriter = backend.planCalls.map((c) => c.input as ChatMessage[]);
  assert.equal(generator.length, 5);
  assert.equal(testWriter.length, 5);
  assert.match(generator[0][0].content, /Add two numbers\./, 'the opening carries the specification');
  for (let k = 0; k < 5; k++) {
    // The test writer continues the generator's request after its answer (a server's cache reads only its task)...
    assert.deepEqual(testWriter[k].slice(0, generator[k].length), generator[k]);
    assert.deepEqual(testWriter[k][generator[k].length], {
      role: 'assistant',
      content: `Reasoning of stage ${k + 1}.`,
    });
    assert.equal(testWriter[k].length, generator[k].length + 2);
    // ...and the next stage shares all of the test writer's request but its task.
    if (k < 4) assert.deepEqual(generator[k + 1].slice(0, -1), testWriter[k].slice(0, -1));
    for (const m of generator[k])
      assert.doesNotMatch(m.content, /assert add\(/, 'a test leaked into the generator');
  }
});

test('a test writer task with {{existing_tests}} is shown the suite so far; the shipped tasks are not', async () => {
  const shipped = loadStageChain();
  const chain = {
    ...shipped,
    stages: shipped.stages.map((s) =>
      s.id === 1
        ? s
        : { ...s, testWriterTask: `Already in the suite:\n{{existing_tests}}\n\n${s.testWriterTask}` },
    ),
  };
  const run = async (stages: typeof shipped) => {
    const backend = new ScriptedBackend(
      () => ['Reasoning.'],
      undefined,
      () => [{ tests: LINES }],
    );
    await runFiveStages({ model: backend, target: await target(), fileSource: SOURCE, chain: stages });
    return backend.planCalls.map((c) => lastMessage(c.input as ChatMessage[]));
  };
  const tasks = await run(chain);
  assert.doesNotMatch(tasks[0], /Already in the suite/);
  // Stage 1 admitted two of LINES (as above); stage 2's writer sees them as written, one per line.
  assert.match(
    tasks[1],
    /^Already in the suite:\nassert add\(1, 2\) == 3\nassert add\(0, 0\) == 0\n\nNow write tests/,
  );
  for (const task of await run(shipped)) assert.doesNotMatch(task, /existing_tests|Already in the suite/);
});

test('the run says how its tests were written: plan, server grammar, or why it fell back to free text', () => {
  const constrained = { mode: 'constrained', fallbackReason: null } as const;
  assert.equal(
    testWritingText({ ...constrained, planMode: 'server-grammar', assertionGrammar: 'lines' }),
    'assertion-lines plan (server-grammar, line grammar)',
  );
  assert.equal(
    testWritingText({ ...constrained, planMode: 'server-grammar', assertionGrammar: 'expressions' }),
    'assertion-lines plan (server-grammar, expression grammar)',
  );
  assert.equal(
    testWritingText({ ...constrained, planMode: 'native', assertionGrammar: null }),
    'assertion-lines plan (native)',
  );
  assert.equal(
    testWritingText({ mode: 'free', planMode: null, assertionGrammar: null, fallbackReason: 'no grammar' }),
    'free text, parsed — no grammar',
  );
});
