import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { readSettings, updateSettings } from '../settings';
import type { EvalReportPanels } from './evalReport';
import { generatorArgs, runCliWithProgress } from './evalRun';
import { trainerPython } from './trainEnvironment';
import { loopFolder } from '../../core/loop/folders';
import { readPrmReport } from '../../core/model/onnx/prmReport';
import type { ScorerVerdict } from '../../core/loop/verdict';

/** What `stepwise loop` writes to loop-report.json (the parts the editor reads). */
interface LoopReport {
  loopDir: string;
  /** Whether the new PRM measured better than the current scorer (reports before it lack this). */
  verdict?: Pick<ScorerVerdict, 'use' | 'summary'>;
  state: {
    export?: { onnxDir: string };
    evaluate?: {
      prmSteps?: EvalFile;
      verifierSteps?: EvalFile;
      /** Present when a PRM was in use before the loop (stepwise.prm.modelPath). */
      currentPrmSteps?: EvalFile;
      bestOfN?: EvalFile;
    };
  };
}

interface EvalFile {
  metrics?: {
    stepRoc?: { auroc?: number | null };
    bestOfN?: { selections?: Record<string, { value: number | null } | undefined> };
  };
}

interface Scale {
  label: string;
  detail: string;
  train: number;
  heldOut: number;
  trainerArgs: string;
}

const SCALES: Scale[] = [
  {
    label: 'Quick check',
    detail: '8 training and 10 held-out problems, a short PRM run: minutes on a laptop, a rough figure',
    train: 8,
    heldOut: 10,
    trainerArgs: '--max-steps 20 --save-steps 10 --batch-size 2',
  },
  {
    label: 'Standard',
    detail: '60 training and 100 held-out problems: hours on a CPU, a figure with a usable interval',
    train: 60,
    heldOut: 100,
    trainerArgs: '--max-steps 60 --save-steps 20 --batch-size 4',
  },
];

interface ImproveArgs {
  /** MATH-style JSONL (problem, answer). */
  data?: string;
  train?: number;
  heldOut?: number;
  solutions?: number;
  samplesPerStep?: number;
  /** Whether problems that no sample solved are labelled too (`stepwise loop --unsolved`). */
  unsolved?: 'skip' | 'label';
  /** Tokens per sampled solution and per continuation. */
  maxTokens?: number;
  baseModel?: string;
  trainerArgs?: string;
  /** Make the new PRM the step scorer without asking (automation); false: never. */
  adopt?: boolean;
}

export interface ImproveOutcome {
  cancelled: boolean;
  report?: string;
  prmDir?: string;
  /**
   * Step AUROC of the new PRM and of the verifier's log-probabilities on the held-out labels, and
   * of the PRM in use before the loop when there was one.
   */
  stepAuroc?: { prm: number | null; verifier: number | null; current?: number | null };
  /**
   * Final-answer accuracy on the held-out problems: best-of-N by the new PRM, by self-score, one
   * sample, and by the PRM in use before the loop when there was one.
   */
  accuracy?: { prm: number | null; single: number | null; self: number | null; current?: number | null };
  /** The loop's recommendation: the new PRM measured better on held-out data than what it replaces. */
  recommended?: boolean;
}

/**
 * "Stepwise: Improve the Model with the Learning Loop": `stepwise loop` in a child process. It samples
 * and auto-labels solutions (the workspace's own labels outrank the automatic ones), trains a PRM,
 * exports it, measures it on held-out problems, and offers it as the step scorer.
 */
export function registerImproveModel(ctx: StepwiseContext, panels: EvalReportPanels): void {
  let running: AbortController | undefined;
  ctx.own({ dispose: () => running?.abort() });

  ctx.command('stepwise.loop.run', async (arg?: unknown): Promise<ImproveOutcome | undefined> => {
    const given = (arg ?? {}) as ImproveArgs;
    const root = ctx.workspaceRoot()?.fsPath;
    if (!root)
      throw new Error('Open a folder: the loop trains on its labels and writes to its .stepwise/ folder.');
    if (running && !running.signal.aborted)
      throw new Error('The model is already being improved; cancel it from its notification first.');
    const data = given.data ?? (await pickProblems(root));
    if (!data) return undefined;
    // Automation gives the sizes; a person picks one of the scales.
    const scale: Pick<Scale, 'train' | 'heldOut' | 'trainerArgs'> | undefined =
      given.train !== undefined
        ? {
            train: given.train,
            heldOut: given.heldOut ?? SCALES[0].heldOut,
            trainerArgs: given.trainerArgs ?? SCALES[0].trainerArgs,
          }
        : await vscode.window.showQuickPick(SCALES, {
            title: 'Stepwise: Improve the Model — how large a run?',
          });
    if (!scale) return undefined;
    const python = await trainerPython(ctx);
    if (!python) return undefined;

    const loopDir = loopFolder(root);
    const args = [
      'loop',
      '--data',
      data,
      '--workspace',
      root,
      '--out',
      loopDir,
      '--train',
      String(scale.train),
      '--held-out',
      String(scale.heldOut),
      // Joined: a value that starts with a dash would otherwise read as an option of its own.
      `--trainer-args=${scale.trainerArgs}`,
      '--python',
      python,
      ...(given.solutions ? ['--solutions', String(given.solutions)] : []),
      ...(given.samplesPerStep ? ['--samples-per-step', String(given.samplesPerStep)] : []),
      ...(given.unsolved ? ['--unsolved', given.unsolved] : []),
      ...(given.maxTokens ? ['--max-tokens', String(given.maxTokens)] : []),
      ...(given.baseModel ? ['--base-model', given.baseModel] : []),
      ...currentPrmArgs(ctx),
      ...(await generatorArgs(ctx)),
    ];
    const outcome = await runCliWithProgress(
      ctx,
      'Stepwise: improving the model from annotations',
      args,
      root,
      (abort) => (running = abort),
    );
    const done = outcome.done;
    if (!done)
      throw new Error(
        `Improving the model failed: ${outcome.output.split('\n').slice(-3).join(' ') || `exit code ${outcome.exitCode}`}`,
      );
    if (done.cancelled) {
      void vscode.window.showInformationMessage(
        'Stepwise: stopped. Run "Improve the Model with the Learning Loop" again to continue where it stopped.',
      );
      return { cancelled: true };
    }
    const report = JSON.parse(fs.readFileSync(done.result, 'utf8')) as LoopReport;
    const result = summarise(report, done.result);
    await offer(ctx, panels, result, report, given.adopt);
    return result;
  });
}

function summarise(report: LoopReport, file: string): ImproveOutcome {
  const evaluate = report.state.evaluate ?? {};
  const selections = evaluate.bestOfN?.metrics?.bestOfN?.selections ?? {};
  return {
    cancelled: false,
    report: file,
    prmDir: report.state.export?.onnxDir,
    stepAuroc: {
      prm: evaluate.prmSteps?.metrics?.stepRoc?.auroc ?? null,
      verifier: evaluate.verifierSteps?.metrics?.stepRoc?.auroc ?? null,
      ...(evaluate.currentPrmSteps
        ? { current: evaluate.currentPrmSteps.metrics?.stepRoc?.auroc ?? null }
        : {}),
    },
    accuracy: {
      prm: selections.stepScore?.value ?? null,
      single: selections.single?.value ?? null,
      self: selections.self?.value ?? null,
      ...(selections.currentPrm ? { current: selections.currentPrm.value } : {}),
    },
    recommended: report.verdict?.use,
  };
}

const percent = (v: number | null | undefined) =>
  v === null || v === undefined ? 'n/a' : `${Math.round(v * 100)}%`;
const fixed = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : v.toFixed(2));

async function offer(
  ctx: StepwiseContext,
  panels: EvalReportPanels,
  result: ImproveOutcome,
  report: LoopReport,
  adopt: boolean | undefined,
): Promise<void> {
  const prmDir = result.prmDir;
  const hasCurrent = result.stepAuroc?.current !== undefined || result.accuracy?.current !== undefined;
  const figures =
    `Step AUROC on held-out steps ${fixed(result.stepAuroc?.prm)} (the verifier: ${fixed(result.stepAuroc?.verifier)}` +
    `${hasCurrent ? `, the current PRM: ${fixed(result.stepAuroc?.current)}` : ''}); ` +
    `best-of-N by it answers ${percent(result.accuracy?.prm)} of held-out problems right ` +
    `(one sample: ${percent(result.accuracy?.single)}, self-score: ${percent(result.accuracy?.self)}` +
    `${hasCurrent ? `, the current PRM: ${percent(result.accuracy?.current)}` : ''}).`;
  const message = report.verdict
    ? `Stepwise: ${report.verdict.summary} ${figures}`
    : `Stepwise: the new process reward model. ${figures}`;
  ctx.log.info(`${message} Loop folder: ${report.loopDir}`);
  const use = async () => {
    if (!prmDir) return;
    await updateSettings({ 'prm.modelPath': prmDir }, vscode.ConfigurationTarget.Workspace);
    ctx.log.info(`Step scorer set to ${prmDir}`);
  };
  if (adopt === true) return use();
  if (adopt === false) return;
  // The step-AUROC scoreboard of the new PRM; best-of-N is in the loop folder's best-of-n.json.
  const stepReport = path.join(report.loopDir, 'eval-prm.json');
  // A PRM that measured worse is still offered, but not as the first choice.
  const notBetter = report.verdict?.use === false;
  const useLabel = notBetter ? 'Use Anyway' : 'Use as Step Scorer';
  const actions = prmDir
    ? notBetter
      ? ['Open Report', useLabel]
      : [useLabel, 'Open Report']
    : ['Open Report'];
  const choice = notBetter
    ? await vscode.window.showWarningMessage(message, ...actions)
    : await vscode.window.showInformationMessage(message, ...actions);
  if (choice === useLabel) await use();
  else if (choice === 'Open Report' && fs.existsSync(stepReport)) panels.show(stepReport);
}

/**
 * The step scorer in use (stepwise.prm.modelPath) as the loop's baseline: a new PRM is recommended
 * only when it beats that one. A setting that names no exported PRM is left out, with a note in the
 * log, so the loop compares with the verifier instead of failing after hours of sampling.
 */
function currentPrmArgs(ctx: StepwiseContext): string[] {
  const current = readSettings().prm.modelPath.trim();
  if (!current) return [];
  try {
    readPrmReport(current);
    return ['--current-prm', current];
  } catch (e) {
    ctx.log.warn(
      `stepwise.prm.modelPath is not an exported PRM (${(e as Error).message}); the loop compares the new PRM with the verifier only.`,
    );
    return [];
  }
}

/** A MATH-style problems file, chosen by the user. */
async function pickProblems(root: string): Promise<string | undefined> {
  const chosen = await vscode.window.showOpenDialog({
    title: 'Stepwise: Improve the Model — problems with known answers (MATH-style JSONL: problem, answer)',
    defaultUri: vscode.Uri.file(root),
    filters: { 'JSON lines': ['jsonl'] },
  });
  return chosen?.[0]?.fsPath;
}
