import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, report, workspaceRoot } from './helpers';
import type { PracticeSet } from '../../src/core/practice/types';

suite('Practice sets (default model)', () => {
  test('generates a small practice set, saves it and exports DPO pairs and generator rewards', async function () {
    this.timeout(600_000);
    await activateStepwise();
    const result = (await vscode.commands.executeCommand('stepwise.practice.generate', {
      topic: 'arithmetic',
      questions: 1,
    })) as { set: PracticeSet; file: string };
    assert.ok(result?.file, 'saved');
    assert.ok(result.file.startsWith(path.join(workspaceRoot(), '.stepwise', 'practice')));
    const saved = JSON.parse(fs.readFileSync(result.file, 'utf8')) as PracticeSet;
    assert.equal(saved.version, 1);
    assert.ok(saved.questions.length <= 1);
    for (const q of saved.questions) {
      assert.ok(
        q.answers.some((a) => a.strength === 'strong') && q.answers.some((a) => a.strength === 'weak'),
      );
      assert.ok(q.reliability.rCons >= 0 && q.reliability.rCons <= 1);
      assert.ok(q.reliability.rStab >= 0 && q.reliability.rStab <= 1);
      assert.equal(q.kept, q.reasons.length === 0);
    }
    const exportDir = result.file.replace(/\.json$/, '');
    const pairs = fs
      .readFileSync(path.join(exportDir, 'dpo-pairs.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const kept = saved.questions.filter((q) => q.kept).length;
    if (kept === 0) assert.equal(pairs.length, 0, 'no pairs from discarded questions');
    for (const p of pairs)
      assert.ok(
        typeof p.prompt === 'string' &&
          typeof p.chosen === 'string' &&
          typeof p.rejected === 'string' &&
          p.r_g !== undefined,
      );
    const rewards = fs
      .readFileSync(path.join(exportDir, 'generator-rewards.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    assert.equal(rewards.length, saved.questions.length);
    report('practice-judge-consistency', {
      questions: saved.questions.length,
      kept,
      rCons: saved.questions.map((q) => q.reliability.rCons),
      rStab: saved.questions.map((q) => q.reliability.rStab),
      judgeFailures: saved.questions.map((q) => q.judgeFailures),
    });
  });
});
