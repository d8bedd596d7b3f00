import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, report, workspaceRoot } from './helpers';
import type { TrainerRun } from '../../src/core/trainer/run';

suite('Train from Annotations', () => {
  test('labels exported by the extension train a process reward model through the real trainer process', async function () {
    this.timeout(600_000);
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
    report('training-prm-e2e', { metrics: done.metrics, events: run.events.length });
  });
});
