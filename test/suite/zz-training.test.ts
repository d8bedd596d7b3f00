import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, report, workspaceRoot } from './helpers';
import type { TrainerRun } from '../../src/core/trainer/run';
import type { ScoredSteps } from '../../src/vscode/features/scoreSteps';

/** "Train from Annotations" → prm on the workspace's labels, adopted as the step scorer. */
async function trainPrm(): Promise<TrainerRun> {
  return (await vscode.commands.executeCommand('stepwise.train.run', {
    job: 'prm',
    baseModel: 'smollm2',
    maxSteps: 2,
    // A batch holds every labelled solution of the workspace (fewer than the job's
    // --eval-min-solutions, so none is held out): both steps of training see the relabelled one.
    extraArgs: ['--batch-size', '8', '--max-length', '256', '--learning-rate', '1e-4'],
    adopt: true,
  })) as TrainerRun;
}

suite('Train from Annotations', () => {
  test('labels made in the editor train a PRM through the real trainer, which is exported and then scores the steps; relabelling moves the next PRM', async function () {
    this.timeout(1_500_000);
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
    await vscode.commands.executeCommand('stepwise.labels.positive');
    await vscode.commands.executeCommand('stepwise.labels.negative');
    const run = await trainPrm();
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
    const scored = (await vscode.commands.executeCommand('stepwise.scoreSteps.run')) as ScoredSteps;
    assert.equal(scored.scorer, path.basename(prmPath));
    const solutionLines = lines.slice(first).filter((l) => l.trim() !== '' && !l.startsWith('#'));
    assert.ok(scored.steps.length >= 2, `the solution's steps were scored (${scored.steps.length})`);
    assert.ok(scored.steps.length <= solutionLines.length);
    for (const s of scored.steps) assert.ok(s.score > 0 && s.score < 1, `step ${s.index} score ${s.score}`);
    assert.equal(scored.steps[0].line, first, 'the first score sits on the first step');

    // Labels made by hand change the next PRM: the second step, labelled wrong above, relabelled
    // right (the newest label of a step is the one that counts). Only that label differs, and the
    // job is seeded, so a second PRM trained from the same base must score that step higher. (The
    // first step stays right: after a wrong step, the training data ends the solution.)
    const editor = await vscode.window.showTextDocument(doc.document);
    editor.selection = new vscode.Selection(first, 0, first, 0);
    await vscode.commands.executeCommand('stepwise.labels.positive');
    await vscode.commands.executeCommand('stepwise.labels.positive');
    const newest = fs
      .readFileSync(path.join(workspaceRoot(), '.stepwise', 'labels', 'labels.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .slice(-2)
      .map((l) => JSON.parse(l) as { stepIndex: number; rating: number });
    assert.deepEqual(
      newest.map((l) => [l.stepIndex, l.rating]),
      [
        [0, 1],
        [1, 1],
      ],
      'the second step was relabelled right',
    );
    const relabelled = await trainPrm();
    assert.equal(relabelled.outcome, 'done', relabelled.message);
    const nextPrm = vscode.workspace.getConfiguration('stepwise').get<string>('prm.modelPath');
    assert.ok(nextPrm && nextPrm !== prmPath, 'the new PRM replaced the old one as the step scorer');
    await vscode.window.showTextDocument(doc.document);
    const rescored = (await vscode.commands.executeCommand('stepwise.scoreSteps.run')) as ScoredSteps;
    assert.ok(
      rescored.steps[1].score > scored.steps[1].score,
      `step 2, now labelled right, scores higher: ${scored.steps[1].score} → ${rescored.steps[1].score}`,
    );
    report('training-prm-e2e', {
      metrics: done.metrics,
      events: run.events.length,
      exportVerification: exportReport.verification,
      stepScores: scored.steps.map((s) => s.score),
      stepScoresAfterRelabelling: rescored.steps.map((s) => s.score),
    });
    await vscode.workspace
      .getConfiguration('stepwise')
      .update('prm.modelPath', undefined, vscode.ConfigurationTarget.Workspace);
  });
});
