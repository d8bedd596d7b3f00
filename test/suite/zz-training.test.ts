import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, report, workspaceRoot } from './helpers';
import type { TrainerRun } from '../../src/core/trainer/run';
import type { ScoredSteps } from '../../src/vscode/features/stepScores';

suite('Train from Annotations', () => {
  test('labels made in the editor train a PRM through the real trainer, which is exported and then scores the steps', async function () {
    this.timeout(900_000);
    await activateStepwise();
    // Labels made the way a user makes them: two steps of a proof document, from the keyboard commands.
    const doc = await vscode.window.showTextDocument(
      vscode.Uri.file(path.join(workspaceRoot(), 'proofs', 'product-of-consecutive.md')),
    );
    const lines = doc.document.getText().split('\n');
    const first = lines.findIndex(
      (l, i) => i > lines.findIndex((x) => /^## Solution/.test(x)) && l.trim() !== '',
    );
    doc.selection = new vscode.Selection(first, 0, first, 0);
    await vscode.commands.executeCommand('stepwise.label.positive');
    await vscode.commands.executeCommand('stepwise.label.negative');
    const run = (await vscode.commands.executeCommand('stepwise.trainFromAnnotations', {
      job: 'prm',
      baseModel: 'smollm2',
      maxSteps: 2,
      extraArgs: ['--batch-size', '1', '--max-length', '256'],
      adopt: true,
    })) as TrainerRun;
    assert.ok(run, 'the command returned the run');
    assert.equal(run.outcome, 'done', run.message);
    const done = run.events.find((e) => e.type === 'done');
    assert.ok(done && done.type === 'done');
    assert.ok(fs.existsSync(path.join(done.output, 'config.json')), 'the trained model was saved');
    assert.ok(
      run.events.some((e) => e.type === 'checkpoint'),
      'a checkpoint was written',
    );
    const trainingDir = path.dirname(done.output);
    assert.ok(
      fs.existsSync(path.join(trainingDir, 'labels.trl.jsonl')),
      'the exported training data sits in the run folder',
    );
    // "Use as Step Scorer": exported to ONNX (verified against PyTorch) and set as the PRM.
    const prmPath = vscode.workspace.getConfiguration('stepwise').get<string>('prm.modelPath');
    assert.ok(prmPath, 'stepwise.prm.modelPath names the exported PRM');
    const exportReport = JSON.parse(fs.readFileSync(path.join(prmPath, 'stepwise_export.json'), 'utf8'));
    assert.equal(exportReport.task, 'token-classification-prm');
    assert.equal(exportReport.verified, true);

    // The extension scores the document's steps with it.
    await vscode.window.showTextDocument(doc.document);
    const scored = (await vscode.commands.executeCommand('stepwise.scoreSteps')) as ScoredSteps;
    assert.equal(scored.scorer, path.basename(prmPath));
    const solutionLines = lines.slice(first).filter((l) => l.trim() !== '' && !l.startsWith('#'));
    assert.ok(scored.steps.length >= 2, `the solution's steps were scored (${scored.steps.length})`);
    assert.ok(scored.steps.length <= solutionLines.length);
    for (const s of scored.steps) assert.ok(s.score > 0 && s.score < 1, `step ${s.index} score ${s.score}`);
    assert.equal(scored.steps[0].line, first, 'the first score sits on the first step');
    report('training-prm-e2e', {
      metrics: done.metrics,
      events: run.events.length,
      exportVerification: exportReport.verification,
      stepScores: scored.steps.map((s) => s.score),
    });
    await vscode.workspace
      .getConfiguration('stepwise')
      .update('prm.modelPath', undefined, vscode.ConfigurationTarget.Workspace);
  });
});
