import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, report, workspaceRoot } from './helpers';
import { isAutomaticLabel, type LabelRecord } from '../../src/core/labels/schema';
import type { ImproveOutcome } from '../../src/vscode/features/loop';

// Problems with known answers, small enough for the test model to sample in seconds.
const PROBLEMS = [
  { unique_id: 'add', problem: 'What is $2+3$?', answer: '5' },
  { unique_id: 'mul', problem: 'What is $4 \\cdot 6$?', answer: '24' },
  { unique_id: 'sub', problem: 'What is $10-7$?', answer: '3' },
];

suite('Improve the Model with the Learning Loop', () => {
  test('the loop samples, auto-labels, trains and exports a PRM, measures it on held-out problems and makes it the step scorer', async function () {
    this.timeout(1_200_000);
    await activateStepwise();
    const root = workspaceRoot();
    const data = path.join(root, 'loop-problems.jsonl');
    fs.writeFileSync(data, PROBLEMS.map((p) => JSON.stringify(p)).join('\n') + '\n');
    const labelsFile = path.join(root, '.stepwise', 'labels', 'labels.jsonl');
    const labelsBefore = fs.existsSync(labelsFile) ? fs.readFileSync(labelsFile, 'utf8') : '';
    try {
      const outcome = (await vscode.commands.executeCommand('stepwise.loop.run', {
        data,
        train: 2,
        heldOut: 1,
        solutions: 2,
        samplesPerStep: 1,
        // The test model's answers are near random: probe every problem, solved or not, so the
        // run has labels to train on whatever it samples.
        unsolved: 'label',
        maxTokens: 48,
        baseModel: 'smollm2',
        trainerArgs: '--max-steps 2 --batch-size 1 --max-length 256',
        adopt: true,
      })) as ImproveOutcome;
      assert.ok(outcome, 'the command returns what it measured');
      assert.equal(outcome.cancelled, false);
      assert.ok(outcome.prmDir, 'the loop exported a PRM');
      const exported = JSON.parse(fs.readFileSync(path.join(outcome.prmDir, 'stepwise_export.json'), 'utf8'));
      assert.equal(exported.task, 'token-classification-prm');
      assert.equal(
        vscode.workspace.getConfiguration('stepwise').get<string>('prm.modelPath'),
        outcome.prmDir,
        'the new PRM is the step scorer',
      );
      // Best-of-N on the held-out problem was measured for every selection the report compares.
      // The report says whether the new PRM measured better than the scorer it would replace.
      assert.equal(typeof outcome.recommended, 'boolean', 'loop-report.json carries a verdict');
      for (const [name, value] of Object.entries(outcome.accuracy ?? {}))
        assert.ok(value !== null && value >= 0 && value <= 1, `${name} accuracy ${value}`);
      // The automatic labels went into the workspace's store, marked as automatic.
      const added = fs
        .readFileSync(labelsFile, 'utf8')
        .slice(labelsBefore.length)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LabelRecord);
      assert.ok(added.length > 0, 'automatic labels were stored');
      assert.ok(
        added.every((l) => isAutomaticLabel(l)),
        `every added label names an automatic source: ${[...new Set(added.map((l) => l.source))].join(', ')}`,
      );
      report('improve-model-loop', { ...outcome, labelsAdded: added.length });
    } finally {
      await vscode.workspace
        .getConfiguration('stepwise')
        .update('prm.modelPath', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(data, { force: true });
      // The workspace's labels as they were: the sample proofs' labels are what other suites read.
      if (fs.existsSync(labelsFile)) fs.writeFileSync(labelsFile, labelsBefore);
      fs.rmSync(path.join(root, '.stepwise', 'loop'), { recursive: true, force: true });
    }
  });
});
