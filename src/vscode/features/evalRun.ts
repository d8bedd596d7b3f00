import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { readSettings } from '../settings';
import { runEvalInChild, type ChildEvalOutcome } from '../../core/eval/childProcess';
import type { EvalKind } from '../../core/eval/evaluation';
import { formatDuration, type EvalProgress } from '../../core/eval/runner';
import { findEvalResults, type EvalReportPanels } from './evalReport';

interface RunArgs {
  kind?: EvalKind;
  data?: string;
  limit?: number;
  /** More `stepwise eval` options, e.g. ['--candidates', '2']. */
  extraArgs?: string[];
  /** Open the report when done without asking (automation); false: never. */
  open?: boolean;
}

const KINDS: { evalKind: EvalKind; label: string; detail: string }[] = [
  {
    evalKind: 'prove',
    label: 'Prove on problems with known answers',
    detail: 'MATH-style JSONL (problem, answer): accuracy, calibration, refinement, best-of-N',
  },
  {
    evalKind: 'tests',
    label: 'Generated tests on HumanEval or MBPP',
    detail: 'Validity and mutation score of the five-stage tests, generator pass rate',
  },
  {
    evalKind: 'prm',
    label: 'Step scorer on labelled steps',
    detail: 'Stepwise labels or PRM800K: step AUROC, F1, first-error accuracy',
  },
];

/** "Stepwise: Run Evaluation…": `stepwise eval` in a child process, with progress, cancellable, resumable. */
export function registerRunEvaluation(ctx: StepwiseContext, panels: EvalReportPanels): void {
  let running: AbortController | undefined;
  ctx.own({ dispose: () => running?.abort() });

  ctx.command('stepwise.eval.run', async (arg?: unknown) => {
    const given = (arg ?? {}) as RunArgs;
    const root = ctx.workspaceRoot()?.fsPath;
    if (!root) throw new Error('Open a folder: evaluation results go to its .stepwise/eval/ folder.');
    if (running && !running.signal.aborted)
      throw new Error('An evaluation is already running; cancel it from its notification first.');
    const kind =
      given.kind ??
      (await vscode.window.showQuickPick(KINDS, { title: 'Stepwise: Run Evaluation — what to measure?' }))
        ?.evalKind;
    if (!kind) return undefined;
    if (kind === 'tests' && !vscode.workspace.isTrusted)
      throw new Error(
        'Evaluating generated tests runs code; trust this workspace first (Manage Workspace Trust).',
      );
    const data = given.data ?? (await pickData(kind, root));
    if (!data) return undefined;
    const limit = given.limit ?? (await askLimit());
    if (limit === null) return undefined;
    const args = [
      'eval',
      kind,
      kind === 'prm' ? '--labels' : '--data',
      data,
      ...(limit ? ['--limit', String(limit)] : []),
    ];
    args.push(...(await modelArgs(ctx, kind)), ...(given.extraArgs ?? []));

    const title = `Stepwise: evaluating ${kind}`;
    let outcome = await runCliWithProgress(ctx, title, args, root, (abort) => (running = abort));
    if (!outcome.done && /would mix two experiments/.test(outcome.output)) {
      const again = await vscode.window.showWarningMessage(
        `Stepwise: ${kind} results for this data were made with other settings.`,
        { modal: true, detail: outcome.output },
        'Start Over',
      );
      if (again !== 'Start Over') return undefined;
      outcome = await runCliWithProgress(
        ctx,
        title,
        [...args, '--fresh'],
        root,
        (abort) => (running = abort),
      );
    }
    const done = outcome.done;
    if (!done)
      throw new Error(
        `The evaluation failed: ${outcome.output.split('\n').slice(-3).join(' ') || `exit code ${outcome.exitCode}`}`,
      );
    panels.refresh(done.result);
    const message = done.stoppedBy
      ? `Stepwise: the evaluation stopped after repeated failures: ${done.stoppedBy.message}`
      : done.cancelled
        ? 'Stepwise: evaluation stopped. Run it again to continue where it stopped.'
        : `Stepwise: evaluation finished${done.complete ? '' : ' with failed items (run again to retry them)'}.`;
    if (given.open === true) panels.show(done.result);
    else if (given.open !== false) {
      const show = done.stoppedBy ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
      void show(message, 'Open Report').then((choice) => choice && panels.show(done.result));
    }
    return done;
  });
}

/**
 * Runs a long `stepwise` command (eval, loop) in a child process under a cancellable progress
 * notification: the extension host only relays its JSON progress lines.
 */
export async function runCliWithProgress(
  ctx: StepwiseContext,
  title: string,
  args: string[],
  cwd: string,
  setRunning: (abort: AbortController) => void,
): Promise<ChildEvalOutcome> {
  const abort = new AbortController();
  setRunning(abort);
  const cli = vscode.Uri.joinPath(ctx.extension.extensionUri, 'dist', 'cli.js').fsPath;
  const command = [process.execPath, cli, ...args];
  ctx.log.info(`${title}: ${command.join(' ')} (in ${cwd})`);
  const config = readSettings().model.backend === 'openai' ? await ctx.model.describeConfig() : null;
  const env = {
    ...process.env,
    // The extension host may be Electron; the CLI needs plain Node.
    ELECTRON_RUN_AS_NODE: '1',
    ...(config?.backend === 'openai' && config.apiKey ? { STEPWISE_API_KEY: config.apiKey } : {}),
  };
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title,
      cancellable: true,
    },
    (progress, token) => {
      token.onCancellationRequested(() => abort.abort());
      let shown = 0;
      return runEvalInChild({
        command,
        cwd,
        env,
        signal: abort.signal,
        onProgress: (p: EvalProgress) => {
          const pct = p.total ? (100 * p.done) / p.total : 100;
          progress.report({ increment: Math.max(0, pct - shown), message: progressMessage(p) });
          shown = Math.max(shown, pct);
        },
        onNotice: (m) => ctx.log.info(`${title}: ${m}`),
        onOutput: (line) => ctx.log.info(`${title}: ${line}`),
      });
    },
  );
}

function progressMessage(p: EvalProgress & { phase?: string }): string {
  const eta = p.etaMs === null ? '' : ` · about ${formatDuration(p.etaMs)} left`;
  const phase = p.phase ? `${p.phase}: ` : '';
  return `${phase}${p.done} of ${p.total} items${p.failed ? `, ${p.failed} failed` : ''}${eta}`;
}

/** Earlier runs of this kind (to continue them), a known data file, or one chosen by the user. */
async function pickData(kind: EvalKind, root: string): Promise<string | undefined> {
  const previous = findEvalResults(root)
    .filter((r) => r.result.kind === kind && fs.existsSync(r.result.dataset.path))
    .map((r) => ({
      label: `${r.result.complete ? 'Again' : 'Continue'}: ${path.basename(r.result.dataset.path)}`,
      description: `${r.result.items.finished}/${r.result.items.selected} items`,
      data: r.result.dataset.path,
    }));
  const labels = path.join(root, '.stepwise', 'labels', 'labels.jsonl');
  const known =
    kind === 'prm' && fs.existsSync(labels)
      ? [
          {
            label: "This workspace's step labels",
            description: '.stepwise/labels/labels.jsonl',
            data: labels,
          },
        ]
      : [];
  const browse = { label: '$(folder-opened) Choose a data file…', description: '', data: '' };
  const items = [...previous, ...known, browse];
  const picked =
    items.length > 1
      ? await vscode.window.showQuickPick(items, { title: 'Stepwise: Run Evaluation — data' })
      : browse;
  if (!picked) return undefined;
  if (picked.data) return picked.data;
  const chosen = await vscode.window.showOpenDialog({
    title:
      kind === 'prove'
        ? 'MATH-style JSONL (problem, answer)'
        : kind === 'tests'
          ? 'HumanEval (.jsonl.gz) or MBPP JSONL'
          : 'Step labels (Stepwise or PRM800K JSONL)',
    defaultUri: vscode.Uri.file(root),
    filters: { 'JSON lines': ['jsonl', 'gz', 'json'] },
  });
  return chosen?.[0]?.fsPath;
}

/** Undefined: all items; null: the user cancelled. */
async function askLimit(): Promise<number | undefined | null> {
  const text = await vscode.window.showInputBox({
    title: 'Stepwise: Run Evaluation — how many items?',
    prompt:
      'The first N items of the data; leave empty for all of them. A stopped run continues where it stopped.',
    validateInput: (v) =>
      v.trim() === '' || /^[1-9]\d*$/.test(v.trim()) ? undefined : 'A whole number, or empty for all',
  });
  if (text === undefined) return null;
  return text.trim() === '' ? undefined : Number(text.trim());
}

/** The configured model as CLI options; the PRM setting scores steps where the evaluation uses one. */
async function modelArgs(ctx: StepwiseContext, kind: EvalKind): Promise<string[]> {
  const s = readSettings();
  const prm = s.prm.modelPath && kind !== 'tests' ? ['--prm-dir', s.prm.modelPath] : [];
  if (kind === 'prm' && prm.length) return prm;
  return [...(await generatorArgs(ctx)), ...prm];
}

/** The configured generator as CLI options (an endpoint's key travels in the environment). */
export async function generatorArgs(ctx: StepwiseContext): Promise<string[]> {
  const config = await ctx.model.describeConfig();
  return config.backend === 'openai'
    ? ['--endpoint', config.baseUrl, '--model', config.model]
    : ['--model-dir', config.modelDir, '--variant', config.variant, '--device', config.device];
}
