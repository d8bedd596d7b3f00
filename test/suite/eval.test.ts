import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, waitFor, workspaceRoot } from './helpers';
import { writeLabels } from '../unit/eval/labelsFixture';
import type { ChildEvalDone } from '../../src/core/eval/childProcess';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TINY_PRM = path.join(ROOT, '.cache', 'models', 'tiny-prm');

function reportTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith('Evaluation: prm'));
}

suite('Evaluation from the editor', () => {
  test('Run Evaluation runs a step-scorer evaluation in a child process and opens its report', async function () {
    this.timeout(240_000);
    await activateStepwise();
    const labels = path.join(workspaceRoot(), 'held-out-labels.jsonl');
    writeLabels(labels, 30);
    const started = Date.now();
    const done = (await vscode.commands.executeCommand('stepwise.eval.run', {
      kind: 'prm',
      data: labels,
      limit: 20,
      extraArgs: ['--prm-dir', TINY_PRM],
      open: true,
    })) as ChildEvalDone;
    assert.ok(done, 'the command returns where the results are');
    assert.equal(done.complete, true);
    assert.equal(done.result, path.join(workspaceRoot(), '.stepwise', 'eval', 'prm-held-out-labels.json'));
    const result = JSON.parse(fs.readFileSync(done.result, 'utf8'));
    assert.equal(result.items.finished, 20);
    assert.equal(result.model.backend, 'prm');
    assert.ok(result.metrics.steps > 20);
    await waitFor('the report tab', () => reportTabs().length === 1, 30_000);
    // The extension host stayed responsive while the child worked: a command round trip is quick.
    const t0 = Date.now();
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    assert.ok(Date.now() - t0 < 5000);
    assert.ok(Date.now() - started < 200_000);

    // Show Evaluation Report opens the same report by file, reusing its tab.
    const shown = await vscode.commands.executeCommand(
      'stepwise.eval.showReport',
      done.result.replace(/\.json$/, '.html'),
    );
    assert.equal(shown, done.result.replace(/\.json$/, '.html'));
    assert.equal(reportTabs().length, 1, 'one tab per results file');
  });

  test('Show Evaluation Report refuses a file that is not an evaluation result, saying so', async () => {
    await activateStepwise();
    const file = path.join(workspaceRoot(), 'not-a-result.json');
    fs.writeFileSync(file, '{"hello": 1}');
    // Commands report their errors to the user and resolve undefined; the panel must not open.
    const before = vscode.window.tabGroups.all.flatMap((g) => g.tabs).length;
    const shown = await vscode.commands.executeCommand('stepwise.eval.showReport', file);
    assert.equal(shown, undefined);
    assert.equal(vscode.window.tabGroups.all.flatMap((g) => g.tabs).length, before);
  });
});
