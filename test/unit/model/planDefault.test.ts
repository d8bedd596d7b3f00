/**
 * Generation plans on the real test model (SmolLM2-135M, see test/testModel.ts): a Prove-shaped plan always yields both sections and
 * a score distribution, and an assertion plan for HumanEval functions yields only lines Python
 * parses, never looping until its budget.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { OnnxEngine } from '../../../src/core/model/onnx/engine';
import { expectedValue, segmentNamed, type PlanSegment } from '../../../src/core/model/plan';
import { findPackageRoot } from '../../../src/core/resources';
import { builtTestModelDir } from '../../testModel';

const dataDir = process.env.STEPWISE_DATA_DIR ?? join(findPackageRoot(), '..', 'shared', 'data');
const python = join(findPackageRoot(), '.venv', 'bin', 'python');
const modelDir = builtTestModelDir();
const skip =
  (!modelDir && 'the test model is not built (scripts/build-default-model.sh)') ||
  (!existsSync(join(dataDir, 'MATH-500.jsonl')) && `no MATH-500 at ${dataDir}`) ||
  (!existsSync(python) && 'no project venv (scripts/setup.sh)');

describe('plans on the test model (SmolLM2-135M)', { skip }, () => {
  let engine: OnnxEngine;
  before(async () => {
    engine = await OnnxEngine.load({ modelDir: modelDir!, variant: 'fp32', device: 'cpu', threads: 2 });
  });
  after(async () => {
    await engine?.dispose();
  });

  test('a Prove-shaped plan always yields a solution, an evaluation and a score distribution', async () => {
    const problems = readFileSync(join(dataDir, 'MATH-500.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, 3)
      .map((l) => (JSON.parse(l) as { problem: string }).problem);
    const plan: PlanSegment[] = [
      { kind: 'text', text: '## Solution\n' },
      { kind: 'free', name: 'solution', maxTokens: 96, stop: ['## Self Evaluation'] },
      { kind: 'text', text: '\n\n## Self Evaluation\n\nHere is my evaluation of the solution:' },
      { kind: 'free', name: 'evaluation', maxTokens: 48, stop: ['\\boxed'] },
      { kind: 'text', text: '\n\nBased on my evaluation, the final overall score should be: \\boxed{' },
      { kind: 'choice', name: 'score', options: ['0', '0.5', '1'] },
      { kind: 'text', text: '}' },
    ];
    for (const problem of problems) {
      const r = await engine.generatePlan(
        [{ role: 'user', content: `Solve the problem, then evaluate your solution.\n\n${problem}` }],
        plan,
        { temperature: 0 },
      );
      const c = r.completions[0];
      assert.ok(segmentNamed(c, 'solution')!.text.trim().length > 0, 'the solution is not empty');
      assert.ok(segmentNamed(c, 'evaluation')!.text.trim().length > 0, 'the evaluation is not empty');
      assert.match(
        c.text,
        /^## Solution\n[\s\S]+\n\n## Self Evaluation\n\nHere is my evaluation[\s\S]+\\boxed\{(0|0\.5|1)\}$/,
      );
      const score = segmentNamed(c, 'score')!;
      assert.ok(Math.abs(score.distribution!.reduce((s, d) => s + d.probability, 0) - 1) < 1e-9);
      const expected = expectedValue(score.distribution!)!;
      assert.ok(expected >= 0 && expected <= 1);
    }
  });

  test('an assertion plan for HumanEval functions yields only parseable, distinct lines and stops by itself', async () => {
    const problems = gunzipSync(readFileSync(join(dataDir, 'HumanEval.jsonl.gz')))
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { prompt: string; entry_point: string })
      .filter((_, i) => [0, 2, 12].includes(i));
    for (const p of problems) {
      const maxLines = 8;
      const maxTokensPerLine = 64;
      const r = await engine.generatePlan(
        [
          {
            role: 'user',
            content: `Write Python assert statements that test this function, one per line.\n\n${p.prompt}`,
          },
        ],
        [
          { kind: 'text', text: '```python\n' },
          {
            kind: 'assertions',
            name: 'tests',
            language: 'python',
            functionName: p.entry_point,
            maxLines,
            maxTokensPerLine,
          },
        ],
        { temperature: 0 },
      );
      const tests = r.completions[0].segments[1];
      const lines = tests.lines!;
      assert.ok(lines.length >= 1, `${p.entry_point}: no assertion admitted`);
      assert.equal(new Set(lines).size, lines.length, 'no line repeats');
      for (const line of lines) {
        assert.ok(
          line.startsWith(`assert ${p.entry_point}(`) || line.startsWith(`assert not ${p.entry_point}(`),
        );
        const parsed = spawnSync(python, ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], {
          input: line,
        });
        assert.equal(parsed.status, 0, `Python does not parse: ${line}\n${parsed.stderr}`);
      }
      // Repeating itself would end the segment early (a repeated line is dropped, a second one
      // ends it), so the tokens stay far below the budget of a looping run.
      assert.ok(
        r.completions[0].tokenCount < maxLines * maxTokensPerLine,
        `${r.completions[0].tokenCount} tokens`,
      );
    }
  });
});
