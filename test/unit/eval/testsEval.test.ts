import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCodeTasks } from '../../../src/core/eval/datasets';
import { outputPaths } from '../../../src/core/eval/evaluation';
import { pythonMutants } from '../../../src/core/eval/mutants';
import { evalTests } from '../../../src/core/eval/suites';
import { evaluateCodeTask } from '../../../src/core/eval/testsEval';
import { loadStageChain, stagesDigest } from '../../../src/core/tests/stages';
import { OnnxBackend } from '../../../src/core/model/onnx/index';
import { asksForTests, scriptedModel } from '../helpers/scriptedModel';
import { tinyModelDir } from '../model/tinyModel';
import { scratchDir } from '../scratchDir';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const MBPP = path.join(ROOT, 'test', 'fixtures', 'eval', 'mbpp-tiny.jsonl');
const SETTINGS = { maxTokens: 64, temperature: 0, perTestTimeoutMs: 5000, memoryMb: 512 };

test('mutants differ from the reference in one place, mix their kinds, and unparsable code gets none', async () => {
  const { items } = readCodeTasks(MBPP);
  const mutants = await pythonMutants(
    { leap: items[3].referenceCode, broken: 'def f(:\n  pass' },
    { limit: 6 },
  );
  assert.deepEqual(mutants.broken, []);
  const leap = mutants.leap;
  assert.equal(leap.length, 6);
  assert.ok(new Set(leap.map((m) => m.kind)).size >= 3, 'several kinds of mutation');
  assert.equal(new Set(leap.map((m) => m.code)).size, 6, 'no duplicates');
  for (const m of leap) assert.match(m.code, /def is_leap\(year\)/);
});

test('nested operators that start at the same place are mutated one at a time (a * b / c)', async () => {
  // HumanEval/2 and others: the outer `/` and the inner `*` both start at `a`; a mutation must
  // change the one it names, not stop on the other (which once crashed the whole run).
  const { scaled } = await pythonMutants({ scaled: 'def f(a, b, c):\n    return a * b / c\n' }, { limit: 8 });
  const bodies = scaled.filter((m) => m.kind === 'arithmetic').map((m) => m.code.split('\n')[1].trim());
  assert.deepEqual(bodies, ['return a // b / c']);
});

test('scoring a suite: admitted assertions, valid on the reference, known-wrong mutants they reject, the generated code', async () => {
  const task = readCodeTasks(MBPP).items[3]; // is_leap
  const constraintTests = [
    '```python',
    'assert is_leap(1900) is False',
    'assert is_leap(1900) is False',
    'assert is_leap(2023) == True',
    'assert is_leap(2000) is True',
    'assert is_leap(2024) == True',
    'print(is_leap(4))',
    '```',
  ].join('\n');
  const model = scriptedModel((prompt) => {
    if (asksForTests(prompt))
      return prompt.includes('Keep each test fast') ? constraintTests : 'No tests here.';
    if (prompt.includes('write the complete Python implementation'))
      return '```python\ndef is_leap(year):\n    return year % 4 == 0 and year % 100 != 0 or year % 400 == 0\n```';
    return 'Reasoning.';
  });
  const mutants = (await pythonMutants({ t: task.referenceCode }, { limit: 8 })).t;
  const r = await evaluateCodeTask(task, { model, settings: SETTINGS, mutants });
  // The stage's budget is 3 tests: the duplicate is dropped, the fourth distinct line and the print are not admitted.
  assert.equal(
    r.tests.admitted,
    3,
    'the duplicate, the line over budget and the print line are not admitted',
  );
  assert.equal(r.tests.oracle, 3, 'assertion lines are judged by the oracle');
  assert.ok(r.tests.rejectedLines >= 2);
  assert.equal(r.tests.valid, 2, 'is_leap(2023) == True is wrong on the reference');
  assert.deepEqual(r.tests.validByStage, [0, 0, 0, 2, 0]);
  // The journal says which test was invalid and why, so a low validity can be read, not guessed.
  assert.equal(r.tests.invalid?.length, 1);
  assert.equal(r.tests.invalid?.[0].test, 'assert is_leap(2023) == True');
  assert.equal(r.tests.invalid?.[0].stage, 4);
  assert.equal(r.tests.invalid?.[0].status, 'failed');
  assert.ok(
    Object.keys(r.tests.rejectedReasons ?? {}).some((reason) => reason.startsWith('duplicate of line N')),
    JSON.stringify(r.tests.rejectedReasons),
  );
  assert.equal(r.referencePassesOfficial, true);
  assert.equal(r.generator.officialStatus, 'passed');
  assert.ok(r.mutants.knownWrong > 0 && r.mutants.knownWrong <= r.mutants.generated);
  assert.ok(r.mutants.killed >= 1 && r.mutants.killed <= r.mutants.knownWrong);
  assert.equal(r.mutants.score, r.mutants.killed / r.mutants.knownWrong);
  assert.equal(r.rewards.validity, 2 / 3);
  assert.equal(r.rewards.generator, 1, 'the generated code passes every valid test');
  // Without any valid test, no mutant can be caught.
  const silent = scriptedModel(() => 'Nothing.');
  const none = await evaluateCodeTask(task, { model: silent, settings: SETTINGS, mutants });
  assert.equal(none.tests.admitted, 0);
  assert.equal(none.mutants.killed, 0);
  assert.notEqual(none.generator.officialStatus, 'passed');
});

test("implementations that all share one misreading, which the specification's example contradicts, cannot make a false alarm", async () => {
  const task = readCodeTasks(MBPP).items[3]; // is_leap; its example: is_leap(2024) == True
  assert.match(task.description, /For example:\nassert is_leap\(2024\) == True$/);
  const misread = '```python\ndef is_leap(year):\n    return year % 400 == 0\n```';
  const model = scriptedModel((prompt) => {
    if (asksForTests(prompt))
      return prompt.includes('Keep each test fast') ? 'assert is_leap(2004) == False' : 'No tests here.';
    // The repair round, shown the failed example, misreads the task again.
    if (
      prompt.includes('write the complete Python implementation') ||
      prompt.includes('specification alone') ||
      prompt.includes('An earlier attempt did not do what')
    )
      return misread;
    return 'Reasoning.';
  });
  const r = await evaluateCodeTask(task, {
    model,
    settings: { ...SETTINGS, evidenceSamples: 2 },
    mutants: [],
  });
  // Three set aside, three sampled again that fail the example too: six set aside.
  assert.deepEqual(r.examples, { tests: 1, setAside: 6 });
  assert.deepEqual({ ...r.repair, ms: 0 }, { setAside: 3, sampled: 3, counted: 0, ms: 0 });
  // The reference fails the wrong test; all three implementations pass it, so counting them all
  // would confirm it (the rule before examples); set aside, they confirm nothing.
  assert.equal(r.verdicts?.referenceFails.length, 1);
  const [fail] = r.verdicts!.referenceFails;
  assert.equal(fail.confidence, 0);
  assert.equal(fail.alternatives?.everyImplementation, 1);
  assert.equal(fail.alternatives?.withUser, 0);
});

test('--offset picks a later slice: items keep their dataset positions in the journal', async () => {
  const dir = scratchDir('stepwise-eval-offset-');
  const out = outputPaths(path.join(dir, 'tests.json'));
  const { result } = await evalTests({
    command: 'test',
    out,
    offset: 3,
    limit: 1,
    concurrency: 1,
    data: MBPP,
    model: scriptedModel(() => 'Nothing.'),
    settings: SETTINGS,
    mutantsPerFunction: 1,
  });
  assert.equal(result.items.selected, 1);
  const items = fs
    .readFileSync(out.journal, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'item');
  assert.deepEqual(
    items.map((e) => [e.index, e.id]),
    [[3, readCodeTasks(MBPP).items[3].id]],
  );
});

test('the stage definitions given to an item are what the test writer is asked, and their digest differs from the shipped one', async () => {
  const dir = scratchDir('stepwise-eval-stages-');
  const stages = JSON.parse(fs.readFileSync(path.join(ROOT, 'prompts', 'code', 'stages.json'), 'utf8'));
  stages.stages[0].testFocus = 'only inputs the specification allows';
  const stagesFile = path.join(dir, 'stages.json');
  fs.writeFileSync(stagesFile, JSON.stringify(stages));
  const task = readCodeTasks(MBPP).items[3];
  const model = scriptedModel(() => 'Nothing.');
  await evaluateCodeTask(task, { model, settings: SETTINGS, mutants: [], chain: loadStageChain(stagesFile) });
  assert.ok(
    model.calls.some((c) => c.prompt.includes('up to 3 small tests of only inputs the specification allows')),
    "the first test writer request carries the file's focus",
  );
  assert.ok(!model.calls.some((c) => c.prompt.includes('the happy path, an empty input')));
  assert.notEqual(stagesDigest(stagesFile), stagesDigest(), 'a journal is never resumed under other stages');
});

test('eval tests runs on a real (tiny) ONNX model over the MBPP fixture and writes its report', async () => {
  const dir = scratchDir('stepwise-eval-tests-');
  const model = await OnnxBackend.load({
    modelDir: tinyModelDir(),
    variant: 'fp32',
    device: 'cpu',
    threads: 1,
  });
  try {
    const out = outputPaths(path.join(dir, 'tests.json'));
    const { result } = await evalTests({
      command: 'test',
      out,
      limit: 2,
      concurrency: 1,
      data: MBPP,
      model,
      settings: { ...SETTINGS, maxTokens: 16 },
      mutantsPerFunction: 4,
    });
    assert.equal(result.complete, true);
    assert.equal(result.dataset.format, 'mbpp');
    assert.equal(result.metrics.functions, 2);
    assert.equal(result.metrics.referencePassRate.k, 2);
    assert.ok(result.metrics.mutationScore.pooled.n > 0, 'known-wrong mutants were found');
    assert.match(fs.readFileSync(out.report, 'utf8'), /Mutation score per function/);
  } finally {
    await model.dispose();
  }
});
