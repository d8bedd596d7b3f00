import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, waitFor, workspaceRoot } from './helpers';
import { parseProveRun } from '../../src/core/prove/runSchema';

suite('Prove and self-verify (default model)', () => {
  test('proves a sample problem, saves a valid run with parsed sections, rewards and bounded iterations', async function () {
    this.timeout(600_000);
    await activateStepwise();
    const doc = path.join(workspaceRoot(), 'proofs', 'even-square.txt');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(doc));
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    const result = (await vscode.commands.executeCommand('stepwise.prove', {
      iterations: 2,
      maxTokens: 96,
      verifierMaxTokens: 48,
    })) as { run: unknown; file?: string };
    assert.ok(result?.file, 'the run was saved');
    const saved = JSON.parse(fs.readFileSync(path.join(workspaceRoot(), result.file!), 'utf8'));
    const parsed = parseProveRun(saved);
    assert.ok('run' in parsed, 'error' in parsed ? parsed.error : '');
    const run = parsed.run;
    assert.equal(run.models.generator.backend, 'onnx');
    assert.ok(
      run.iterations.length >= 1 && run.iterations.length <= 2,
      `iterations: ${run.iterations.length}`,
    );
    assert.ok(['p-correct', 'self-score-1', 'max-iterations'].includes(run.stopReason), run.stopReason);
    // The embedded model runs plans in its worker: every answer is constrained.
    assert.deepEqual(run.generation.generator, {
      mode: 'constrained',
      planMode: 'native',
      fallbackReason: null,
    });
    for (const it of run.iterations) {
      for (const c of it.candidates) {
        assert.equal(c.constrained, true);
        assert.ok(
          c.selfScoreDistribution && c.selfScoreDistribution.source === 'choice',
          'a self-score distribution',
        );
        assert.equal(c.parsed.selfScore, c.selfScoreDistribution.expected);
        assert.ok(c.parsed.formatReward === 0 || c.parsed.formatReward === 1);
        assert.ok(Array.isArray(c.parsed.problems));
        assert.equal(c.rewards.rFormat, c.parsed.formatReward);
        if (c.parsed.formatReward === 0) assert.equal(c.rewards.r, 0, 'a wrong format earns nothing');
      }
    }
    // The panel shows the run.
    const tab = await waitFor('the Prove panel', () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.label === 'Stepwise: Prove and Self-Verify'),
    );
    assert.ok(tab.input instanceof vscode.TabInputWebview);
  });
});
