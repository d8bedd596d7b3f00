import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, waitFor, workspaceRoot } from './helpers';
import { parseProveRun, type ProveRun } from '../../src/core/prove/runSchema';
import { calibrationReport } from '../../src/core/prove/calibration';
import { loadRuns } from '../../src/core/prove/runStore';
import { runsDir } from '../../src/core/runs/folder';
import { parseProofDocument } from '../../src/core/steps/document';

const readRun = (file: string): ProveRun => {
  const parsed = parseProveRun(JSON.parse(fs.readFileSync(path.join(workspaceRoot(), file), 'utf8')));
  assert.ok('run' in parsed, 'error' in parsed ? parsed.error : '');
  return parsed.run;
};

suite('Check My Proof and cancelled runs', () => {
  test("Check My Proof judges the person's own proof of sqrt(2) and saves a check run", async function () {
    this.timeout(600_000);
    await activateStepwise();
    const file = path.join(workspaceRoot(), 'proofs', 'sqrt-two-irrational.md');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    const before = editor.document.getText();
    const result = (await vscode.commands.executeCommand('stepwise.check', {
      verifierMaxTokens: 48,
    })) as { run: ProveRun; file?: string };
    assert.ok(result?.file, 'the run was saved');
    const run = readRun(result.file!);
    assert.equal(run.kind, 'check');
    assert.equal(run.status, 'completed', run.error?.message);
    assert.equal(run.problem.file, file);
    const c = run.iterations[0].candidates[0];
    // The proof judged is the person's, step for step: nothing was generated in its place.
    const docSteps = parseProofDocument(before).steps;
    assert.deepEqual(
      c.stepScores?.steps.map((s) => s.hash),
      docSteps.map((s) => s.hash),
    );
    assert.ok(c.stepScores!.steps.every((s) => s.score >= 0 && s.score <= 1));
    assert.ok(c.verifier && c.verifier.passes.length === 1, 'the verifier graded it');
    assert.ok(c.verifier.score !== null, 'a constrained verdict always has a score');
    assert.ok(c.meta, "the meta-verifier checked the verifier's issues");
    assert.equal(editor.document.getText(), before, 'the document is not changed');
    // It joins the calibration data.
    const loaded = await loadRuns(runsDir(workspaceRoot()));
    const report = calibrationReport(loaded.runs.map((r) => r.run).filter((r) => r.id === run.id));
    assert.equal(report.constrained + report.free, 1);
    // The panel names what ran: a check, not a Prove run.
    const tab = await waitFor('the results panel', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === 'Stepwise: Check My Proof'),
    );
    assert.ok(tab.input instanceof vscode.TabInputWebview);
  });

  test('a run replaced by a new one is saved as cancelled and kept out of calibration', async function () {
    this.timeout(600_000);
    const api = await activateStepwise();
    const file = path.join(workspaceRoot(), 'proofs', 'sqrt-two-irrational.md');
    await vscode.window.showTextDocument(vscode.Uri.file(file));
    const first = vscode.commands.executeCommand('stepwise.prove', {
      iterations: 1,
      maxTokens: 256,
      verifierMaxTokens: 48,
    }) as Thenable<{ run: ProveRun; file?: string }>;
    // Once the model is at work on the first run, a second run takes the panel over.
    await waitFor('the first run to start', () => api.context.model.state.kind === 'busy', 120_000);
    const second = (await vscode.commands.executeCommand('stepwise.check', {
      verifierMaxTokens: 16,
    })) as { run: ProveRun; file?: string };
    const cancelled = await first;
    assert.equal(cancelled.run.status, 'cancelled');
    assert.equal(cancelled.run.stopReason, 'cancelled');
    assert.equal(cancelled.run.error, null, 'a cancelled run is not a failure');
    assert.ok(cancelled.file, 'the cancelled run is saved');
    assert.equal(readRun(cancelled.file!).status, 'cancelled');
    assert.equal(second.run.status, 'completed');
    const report = calibrationReport([readRun(cancelled.file!)]);
    assert.equal(report.constrained + report.free, 0, 'a cancelled run is no calibration data');
  });
});
