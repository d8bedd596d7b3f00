import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateStepwise, report, workspaceRoot } from './helpers';
import type { StepwiseApi } from '../../src/vscode/extension';
import type { ScoredSteps } from '../../src/vscode/features/scoreSteps';
import { trainLearnedSteps } from '../../src/core/eval/learnedSteps';
import type { LabelledSteps } from '../../src/core/eval/prmEval';
import { LearnedStepScorer, solutionStepFeatures } from '../../src/core/judgment/learnedStepScorer';
import { loadStepHead } from '../../src/core/judgment/stepHead';
import type { ChatMessage } from '../../src/core/model/types';
import { loadPrompt, renderPrompt } from '../../src/core/prove/prompts';
import { parseProveRun, type CandidateRecord, type ProveRun } from '../../src/core/prove/runSchema';
import { clampStepProbability } from '../../src/core/prove/stepScores';
import { stepScorerText } from '../../src/core/judgment/verdictText';

const template = loadPrompt('generator');
const promptOf = (problem: string): ChatMessage[] => [
  { role: 'user', content: renderPrompt(template, { problem }) },
];

/**
 * Sums written out in steps, each problem once right and once with a number of one step changed
 * (cut there, that step labelled wrong), as the injected-error labels are made: enough labelled
 * steps on both sides of the hash split to fit and measure a head in well under a minute.
 */
function labelledSums(): LabelledSteps[] {
  const out: LabelledSteps[] = [];
  for (let p = 0; p < 14; p++) {
    const a = 13 + 7 * p;
    const b = 28 + 5 * p;
    const tens = Math.floor(a / 10) * 10 + Math.floor(b / 10) * 10;
    const ones = (a % 10) + (b % 10);
    const steps = [
      `Add the tens: ${Math.floor(a / 10) * 10} + ${Math.floor(b / 10) * 10} = ${tens}.`,
      `Add the ones: ${a % 10} + ${b % 10} = ${ones}.`,
      `Together: ${tens} + ${ones} = ${a + b}.`,
      `The answer is \\boxed{${a + b}}.`,
    ];
    const problem = `Compute ${a} + ${b}.`;
    out.push({ id: `sum-${p}`, problem, steps: steps.map((text) => ({ text, rating: 1 })) });
    const k = p % 3;
    const wrong = steps.slice(0, k + 1);
    // The step's result off by a few: what the head must notice as surprising.
    wrong[k] = wrong[k].replace(/= (\d+)\.$/, (_, n: string) => `= ${Number(n) + 3 + (p % 5)}.`);
    out.push({
      id: `sum-${p}-wrong`,
      problem,
      steps: wrong.map((text, i) => ({ text, rating: i === k ? -1 : 1 })),
    });
  }
  return out;
}

async function setStepHead(file: string | undefined): Promise<void> {
  await vscode.workspace
    .getConfiguration('stepwise')
    .update('prm.stepHeadPath', file, vscode.ConfigurationTarget.Workspace);
}

const readRun = (file: string): ProveRun => {
  const parsed = parseProveRun(JSON.parse(fs.readFileSync(path.join(workspaceRoot(), file), 'utf8')));
  assert.ok('run' in parsed, 'error' in parsed ? parsed.error : '');
  return parsed.run;
};

/** The candidate's step scores, recomputed here by the head on the same model: they must be the panel's. */
async function assertScoredByHead(
  api: StepwiseApi,
  run: ProveRun,
  c: CandidateRecord,
  headFile: string,
): Promise<void> {
  assert.equal(
    run.models.stepScorer?.kind,
    'step-head',
    `step scorer: ${JSON.stringify(run.models.stepScorer)}`,
  );
  assert.deepEqual(c.stepScores?.scorer, run.models.stepScorer);
  const line = stepScorerText(c.stepScores?.scorer);
  assert.match(
    line,
    /^step scores: learned step head on SmolLM2-135M-Instruct \(held-out step AUROC \d\.\d\d/,
  );
  const steps = c.stepScores!.steps;
  assert.ok(steps.length > 0, 'the proof has steps');
  const expected = await api.context.model.use('checking the step head', (generator) =>
    new LearnedStepScorer(generator, loadStepHead(headFile), promptOf).scoreSteps(
      run.problem.text,
      steps.map((s) => s.text),
    ),
  );
  steps.forEach((s, i) =>
    assert.ok(
      // A second pass may differ in the last digits (prefix cache), never by what another scorer would.
      Math.abs(s.score - clampStepProbability(expected[i])) < 1e-3,
      `step ${i + 1}: shown ${s.score}, the head gives ${expected[i]}`,
    ),
  );
}

suite('Learned step head in the editor (stepwise.prm.stepHeadPath)', () => {
  test('a head trained on the test model scores the steps of Check My Proof and Prove; one fitted on another model is refused', async function () {
    this.timeout(600_000);
    const api = await activateStepwise();
    assert.equal(
      vscode.workspace.getConfiguration('stepwise').get<string>('prm.modelPath'),
      '',
      'no PRM is set: it would be used before the head',
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-step-head-'));
    const headFile = path.join(dir, 'step-head.json');
    const foreignFile = path.join(dir, 'foreign-head.json');
    const proofFile = path.join(workspaceRoot(), 'step-head-check.md');
    try {
      // Trained here, on the model the editor runs, from the generator's own log-probabilities.
      const started = Date.now();
      const { head, modelName } = await api.context.model.use('training a step head', async (generator) => {
        const rows = [];
        for (const solution of labelledSums()) {
          const steps = solution.steps.map((s) => s.text);
          rows.push({
            solution,
            features: await solutionStepFeatures(generator, promptOf(solution.problem), steps),
          });
        }
        return {
          head: trainLearnedSteps(rows, { model: generator.info.name }).head,
          modelName: generator.info.name,
        };
      });
      assert.equal(modelName, 'SmolLM2-135M-Instruct');
      assert.ok(head.heldOut, 'the head carries its held-out figures');
      fs.writeFileSync(headFile, JSON.stringify(head));
      report('step-head-editor', {
        model: modelName,
        trainSeconds: (Date.now() - started) / 1000,
        features: head.features,
        heldOut: head.heldOut,
      });
      fs.writeFileSync(
        proofFile,
        '## Problem\n\nCompute 24 + 39.\n\n## Solution\n\nAdd the tens: 20 + 30 = 50.\n\nAdd the ones: 4 + 9 = 15.\n\nTogether: 50 + 15 = 65.\n\nThe answer is $\\boxed{65}$.\n',
      );
      await setStepHead(headFile);

      // Check My Proof: the person's steps scored by the head.
      await vscode.window.showTextDocument(vscode.Uri.file(proofFile));
      const checked = (await vscode.commands.executeCommand('stepwise.check', { verifierMaxTokens: 32 })) as {
        run: ProveRun;
        file?: string;
      };
      assert.ok(checked?.file, 'the check run was saved');
      const checkRun = readRun(checked.file!);
      assert.equal(checkRun.status, 'completed', checkRun.error?.message);
      await assertScoredByHead(api, checkRun, checkRun.iterations[0].candidates[0], headFile);
      assert.equal(checkRun.iterations[0].candidates[0].stepScores!.steps.length, 4);

      // Score Steps: with no PRM set, the same head scores the document's steps and is named.
      await vscode.window.showTextDocument(vscode.Uri.file(proofFile));
      const scored = (await vscode.commands.executeCommand('stepwise.scoreSteps.run')) as ScoredSteps;
      assert.equal(scored.scorerKind, 'step-head');
      assert.match(
        scored.scorer,
        /^learned step head on SmolLM2-135M-Instruct \(held-out step AUROC \d\.\d\d/,
      );
      assert.equal(scored.threshold, head.threshold);
      // The same steps and head: the scores Check My Proof showed (to the last digits a cache may change).
      const checked0 = checkRun.iterations[0].candidates[0].stepScores!.steps;
      assert.equal(scored.steps.length, checked0.length);
      scored.steps.forEach((s, i) =>
        assert.ok(
          Math.abs(clampStepProbability(s.score) - checked0[i].score) < 1e-3,
          `step ${i + 1}: Score Steps ${s.score}, Check My Proof ${checked0[i].score}`,
        ),
      );
      scored.steps.forEach((s) => assert.equal(s.flagged, s.score < head.threshold));

      // Prove: every judged candidate's steps scored by the head.
      const proved = (await vscode.commands.executeCommand('stepwise.prove', {
        iterations: 1,
        candidates: 1,
        maxTokens: 96,
        verifierMaxTokens: 32,
      })) as { run: ProveRun; file?: string };
      assert.ok(proved?.file, 'the Prove run was saved');
      const proveRun = readRun(proved.file!);
      const candidate = proveRun.iterations[0].candidates[0];
      assert.ok(candidate.stepScores, `Prove scored the steps (status ${proveRun.status})`);
      await assertScoredByHead(api, proveRun, candidate, headFile);

      // A head fitted on another model reads log-probabilities it was not fitted on: refused, and
      // the steps are the verifier's again.
      fs.writeFileSync(foreignFile, JSON.stringify({ ...head, model: 'Qwen2.5-Coder-0.5B-Instruct' }));
      await setStepHead(foreignFile);
      await vscode.window.showTextDocument(vscode.Uri.file(proofFile));
      const refused = (await vscode.commands.executeCommand('stepwise.check', { verifierMaxTokens: 32 })) as {
        run: ProveRun;
        file?: string;
      };
      const refusedRun = readRun(refused.file!);
      assert.equal(refusedRun.status, 'completed', refusedRun.error?.message);
      assert.equal(refusedRun.models.stepScorer?.kind, 'verifier-logprob');
      assert.match(
        stepScorerText(refusedRun.iterations[0].candidates[0].stepScores?.scorer),
        /the verifier .* asked about each step/,
      );
    } finally {
      await setStepHead(undefined);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(proofFile, { force: true });
    }
  });
});
