import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, waitFor, workspaceRoot } from './helpers';
import type { FiveStageRun } from '../../src/core/tests/pipeline';
import { createSandboxSuiteRunner } from '../../src/core/tests/sandboxRunner';

/** The sample file whose functions the suite generates tests for. */
const intervals = () => vscode.Uri.file(path.join(workspaceRoot(), 'code', 'intervals.py'));

/** Runs the command a CodeLens runs on `name` of the sample file, with short answers. */
async function generateTests(name: string): Promise<FiveStageRun> {
  await activateStepwise();
  return (await vscode.commands.executeCommand('stepwise.tests.generate', intervals(), name, {
    maxTokens: 96,
  })) as FiveStageRun;
}

suite('Reason & generate tests (default model)', () => {
  test('a CodeLens appears above each sample function', async () => {
    await activateStepwise();
    const uri = intervals();
    await vscode.window.showTextDocument(uri);
    const lenses = await waitFor('CodeLenses', async () => {
      const l =
        (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ??
        [];
      const ours = l.filter((x) => x.command?.command === 'stepwise.tests.generate');
      return ours.length ? ours : undefined;
    });
    assert.deepEqual(
      lenses.map((l) => l.command!.arguments![1]),
      ['merge_intervals', 'is_palindrome', 'two_sum'],
    );
    const lines = lenses.map((l) => l.range.start.line);
    const text = (await vscode.workspace.openTextDocument(uri)).getText().split('\n');
    assert.ok(
      lines.every((n) => /^def /.test(text[n])),
      'each lens sits on its def line',
    );
  });

  test('the command runs five stages, accumulates tests by stage, runs them and fills the Test Explorer', async function () {
    this.timeout(600_000);
    const run = await generateTests('is_palindrome');
    assert.ok(run, 'the command returned its run');
    assert.deepEqual(
      run.stages.map((s) => s.stage.id),
      [1, 2, 3, 4, 5],
    );
    assert.ok(
      run.stages.every((s) => s.reasoning.length > 0),
      'every stage produced text',
    );
    // Tests accumulate with their stage of origin, whatever the small model managed to write.
    assert.equal(
      run.accumulatedSuite.length,
      run.stages.reduce((n, s) => n + s.tests.length, 0),
    );
    assert.ok(run.accumulatedSuite.every((t) => t.stage >= 1 && t.stage <= 5));
    assert.equal(run.verdicts.length, run.accumulatedSuite.length);
    assert.ok(run.scores, 'the suite was executed (the workspace is trusted)');
    assert.equal(run.scores.total, run.accumulatedSuite.length);
    assert.ok(run.scores.validity >= 0 && run.scores.validity <= 1);
    if (run.scores.valid === 0) assert.equal(run.scores.generatorReward, 0.5);
    const tab = await waitFor('the panel', () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.label === 'Stepwise: Reason & Generate Tests'),
    );
    assert.ok(tab);
  });

  test('hand-written tests run from the sandbox command path: verdicts for a real function', async () => {
    // The Test Explorer runs suites through the same sandbox; here a known suite checks it end to end.
    const runner = createSandboxSuiteRunner({
      perTestTimeoutMs: 5000,
      suiteTimeoutMs: 60_000,
      memoryMb: 512,
    });
    const source = (await vscode.workspace.openTextDocument(intervals())).getText();
    const result = await runner({
      language: 'python',
      code: source,
      tests: [
        {
          name: 'test_merge',
          stage: 1,
          source: 'def test_merge():\n    assert merge_intervals([[1, 3], [2, 4]]) == [[1, 4]]\n',
        },
        {
          name: 'test_wrong',
          stage: 2,
          source: 'def test_wrong():\n    assert two_sum([1, 2], 3) == [1, 0]\n',
        },
      ],
    });
    assert.deepEqual(
      result.verdicts.map((v) => v.status),
      ['passed', 'failed'],
    );
  });

  test('merge_intervals (correct): no failure is shown without evidence, and a judgement is stored', async function () {
    this.timeout(600_000);
    const run = await generateTests('merge_intervals');
    assert.ok(run?.scores, 'the suite was executed (the workspace is trusted)');
    assert.equal(run.samples?.length, 2, 'two independent implementations were sampled as evidence');
    // Calls with two arguments cannot match merge_intervals(intervals): they never run.
    assert.ok(
      run.accumulatedSuite.every(
        (t) => !/merge_intervals\(\s*\[[^\]]*\]\s*,\s*\[/.test(t.assertion?.call ?? ''),
      ),
      'no two-argument call was admitted',
    );
    for (const v of run.verdicts) {
      assert.ok(v.evidence, `${v.name} carries its evidence`);
      // A failure on the correct function is shown as one only with confirmed evidence.
      if (v.verdict === 'fails-confirmed') assert.ok(v.evidence.confidence >= run.confirmThreshold!);
      if (v.onUser === 'failed') assert.ok(v.verdict === 'unconfirmed' || v.verdict === 'fails-confirmed');
    }
    // A judgement of one of the run's tests is appended to the workspace's store.
    if (run.verdicts.length) {
      const stored = await vscode.commands.executeCommand<{ file: string }>(
        'stepwise.tests.reject',
        run.verdicts[0].name,
      );
      assert.match(stored?.file ?? '', /\.stepwise[\\/]test-judgements\.jsonl$/);
    }
  });
});
