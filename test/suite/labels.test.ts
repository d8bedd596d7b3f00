import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, report, workspaceRoot } from './helpers';
import type { LabelCommandResult } from '../../src/vscode/features/labels/index';
import { LabelService } from '../../src/vscode/features/labels/service';
import { parseProofDocument } from '../../src/core/steps/document';

suite('Step labels', () => {
  test('label three steps by command: durable JSONL records, decorations, undo', async () => {
    await activateStepwise();
    const file = path.join(workspaceRoot(), 'proofs', 'sum-of-odd-numbers.md');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    const text = editor.document.getText();
    const firstStepLine = text
      .split('\n')
      .findIndex((l, i, all) => i > all.findIndex((x) => /^## Solution/.test(x)) && l.trim() !== '');
    assert.ok(firstStepLine > 0, 'the sample has a solution');
    editor.selection = new vscode.Selection(firstStepLine, 0, firstStepLine, 0);
    const timings: number[] = [];
    const results: LabelCommandResult[] = [];
    for (const command of [
      'stepwise.labels.positive',
      'stepwise.labels.neutral',
      'stepwise.labels.negative',
    ]) {
      const r = (await vscode.commands.executeCommand(command)) as LabelCommandResult;
      assert.ok(r, `${command} returned nothing`);
      results.push(r);
      timings.push(r.decoratedMs);
    }
    assert.deepEqual(
      results.map((r) => [r.stepIndex, r.rating]),
      [
        [0, 1],
        [1, 0],
        [2, -1],
      ],
      'the cursor moves on to the next step after each label',
    );
    const store = path.join(workspaceRoot(), '.stepwise', 'labels', 'labels.jsonl');
    const lines = fs
      .readFileSync(store, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 3);
    assert.deepEqual(
      lines.map((l) => [l.stepIndex, l.rating, l.source, l.schemaVersion]),
      [
        [0, 1, 'editor', 1],
        [1, 0, 'editor', 1],
        [2, -1, 'editor', 1],
      ],
    );
    assert.ok(lines.every((l) => l.solutionId === 'doc:proofs/sum-of-odd-numbers.md'));
    report('labelling-latency', {
      decoratedMs: timings.map((t) => Number(t.toFixed(1))),
      durableMs: results.map((r) => Number(r.durableMs.toFixed(1))),
      targetMs: 50,
    });

    const undone = (await vscode.commands.executeCommand('stepwise.labels.undo')) as {
      stepIndex: number;
      rating: number | null;
    };
    assert.equal(undone.stepIndex, 2);
    assert.equal(undone.rating, null);
    const after = fs.readFileSync(store, 'utf8').trim().split('\n');
    assert.equal(after.length, 4, 'undo appends; it never rewrites');
  });

  test('stop-at-first-error refuses labels after a wrong step', async () => {
    await activateStepwise();
    const file = path.join(workspaceRoot(), 'proofs', 'sum-of-odd-numbers.md');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    await vscode.workspace
      .getConfiguration('stepwise')
      .update('labels.stopAtFirstError', true, vscode.ConfigurationTarget.Workspace);
    try {
      const lines = editor.document.getText().split('\n');
      const solution = lines.findIndex((l) => /^## Solution/.test(l));
      const stepLines = lines
        .map((l, i) => [l, i] as const)
        .filter(([l, i]) => i > solution && l.trim() !== '')
        .map(([, i]) => i);
      editor.selection = new vscode.Selection(stepLines[1], 0, stepLines[1], 0);
      const wrong = (await vscode.commands.executeCommand('stepwise.labels.negative')) as LabelCommandResult;
      assert.equal(wrong.stepIndex, 1);
      editor.selection = new vscode.Selection(stepLines[3], 0, stepLines[3], 0);
      const refused = await vscode.commands.executeCommand('stepwise.labels.positive');
      assert.equal(refused, undefined);
    } finally {
      await vscode.workspace
        .getConfiguration('stepwise')
        .update('labels.stopAtFirstError', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('two quick toggles of stop-at-first-error leave it as it was', async () => {
    await activateStepwise();
    const setting = () =>
      vscode.workspace.getConfiguration('stepwise').get<boolean>('labels.stopAtFirstError');
    const before = setting();
    try {
      // Not awaited one by one, as a double key press: the second must see the first's write.
      await Promise.all([
        vscode.commands.executeCommand('stepwise.labels.toggleStopAtFirstError'),
        vscode.commands.executeCommand('stepwise.labels.toggleStopAtFirstError'),
      ]);
      assert.equal(setting(), before);
      await vscode.commands.executeCommand('stepwise.labels.toggleStopAtFirstError');
      assert.equal(setting(), !before);
    } finally {
      await vscode.workspace
        .getConfiguration('stepwise')
        .update('labels.stopAtFirstError', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('editing a labelled step marks its label stale', async () => {
    await activateStepwise();
    const file = path.join(workspaceRoot(), 'proofs', 'sum-of-odd-numbers.md');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    const lines = editor.document.getText().split('\n');
    const solution = lines.findIndex((l) => /^## Solution/.test(l));
    const first = lines.findIndex((l, i) => i > solution && l.trim() !== '');
    await editor.edit((b) => b.insert(new vscode.Position(first, lines[first].length), ' (edited)'));
    const service = new LabelService(vscode.window.createOutputChannel('test', { log: true }));
    const states = await service.stepLabels(
      workspaceRoot(),
      'doc:proofs/sum-of-odd-numbers.md',
      parseProofDocument(editor.document.getText()).steps,
    );
    assert.equal(states[0].stale, true, 'the edited step');
    assert.equal(states[0].label?.rating, 1, 'the label itself is kept');
    assert.equal(states[2].stale, false, 'an untouched step');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });
});
