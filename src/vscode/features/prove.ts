import * as vscode from 'vscode';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { openPanel, singletonPanel } from '../panels/panelHost';
import { readSettings } from '../settings';
import { proveAndVerify } from '../../core/prove/prove';
import type { ProveEvent } from '../../core/prove/events';
import type { ProveRun } from '../../core/prove/runSchema';
import { loadRuns, runsDir, saveRun } from '../../core/prove/runStore';
import { calibrationReport } from '../../core/prove/calibration';
import type {
  CalibrationHost,
  ProveHost,
  ProveLive,
  ProveView,
  StepLabelView,
} from '../../shared/protocols/prove';
import { problemAt, problemFromDocument } from '../../core/steps/document';
import { DEFAULT_CALIBRATOR_FILE, loadCalibrator } from '../../core/judgment/judge';
import type { RoundCalibrator } from '../../core/prove/judgeRound';

const VIEW_TYPE = 'stepwise.prove';
const CALIBRATION = 'stepwise.calibration';

/** Labels of the shown run's steps; the labelling feature plugs in here. */
export interface PanelLabelling {
  labelsFor(run: ProveRun, iteration: number, candidate: number): Promise<StepLabelView[]>;
  label(
    run: ProveRun,
    iteration: number,
    candidate: number,
    stepIndex: number,
    rating: -1 | 0 | 1,
  ): Promise<StepLabelView[]>;
}

export function registerProve(ctx: StepwiseContext, labelling?: () => PanelLabelling | undefined): void {
  let shown: { run: ProveRun | null; file?: string } = { run: null };
  let running: AbortController | undefined;

  const chosen = (run: ProveRun) =>
    run.final ?? {
      iteration: run.iterations.length - 1,
      candidate: run.iterations[run.iterations.length - 1]?.chosen ?? 0,
    };

  const panel = singletonPanel<ProveHost, ProveView>(ctx, {
    viewType: VIEW_TYPE,
    bundle: 'prove',
    title: 'Stepwise: Prove and Self-Verify',
    styles: ['katex/katex.min.css'],
    handlers: () => ({
      state: async () => {
        const l = labelling?.();
        const sel = shown.run && chosen(shown.run);
        const labels =
          shown.run && l && sel ? await l.labelsFor(shown.run, sel.iteration, sel.candidate) : [];
        return { ...shown, labels };
      },
      cancel: () => {
        running?.abort();
        return null;
      },
      label: async ({ iteration, candidate, stepIndex, rating }) => {
        const l = labelling?.();
        if (!l || !shown.run) throw new Error('Labelling is not available: open a workspace folder first.');
        return { saved: true, labels: await l.label(shown.run, iteration, candidate, stepIndex, rating) };
      },
    }),
    column: vscode.ViewColumn.Beside,
    preserveFocus: true,
  });

  ctx.command('stepwise.prove', async (arg?: unknown) => {
    const given =
      typeof arg === 'object' && arg !== null && !(arg instanceof vscode.Uri)
        ? (arg as {
            problem?: string;
            file?: string;
            iterations?: number;
            candidates?: number;
            maxTokens?: number;
            verifierMaxTokens?: number;
          })
        : {};
    const editor = vscode.window.activeTextEditor;
    let problem = given.problem;
    let file: string | null = given.file ?? null;
    if (!problem && editor) {
      const selected = editor.document.getText(editor.selection).trim();
      const text = editor.document.getText();
      // A selection wins; then the Problem block around the cursor; a plain-text file is all problem.
      problem =
        selected ||
        problemAt(text, editor.document.offsetAt(editor.selection.active)) ||
        problemFromDocument(text).text ||
        undefined;
      file = editor.document.uri.fsPath;
    }
    if (!problem) {
      problem = await vscode.window.showInputBox({
        title: 'Stepwise: Prove and Self-Verify',
        prompt: 'The problem to prove (or open a proof document with a "## Problem" section)',
      });
      if (!problem) return undefined;
    }
    const s = readSettings();
    running?.abort();
    const abort = new AbortController();
    running = abort;
    shown = { run: null };
    const handle = panel.show();
    await handle.ready;
    const liveState: ProveLive = { iteration: 0, phase: 'generate', candidate: null, text: {} };
    let flush: NodeJS.Timeout | undefined;
    // Tokens arrive faster than a webview needs to repaint; send at most ten updates a second.
    const scheduleLive = () => {
      flush ??= setTimeout(() => {
        flush = undefined;
        handle.rpc.emit('live', liveState);
      }, 100);
    };
    const onEvent = (e: ProveEvent) => {
      if (e.type === 'phase') {
        Object.assign(liveState, {
          iteration: e.iteration,
          phase: e.phase,
          candidate: e.candidate,
          text: {},
        });
        handle.rpc.emit('live', liveState);
      } else if (e.type === 'token') {
        liveState.text[e.sequence] = (liveState.text[e.sequence] ?? '') + e.text;
        scheduleLive();
      } else if (e.type === 'iteration') {
        if (shown.run) shown.run.iterations.push(e.iteration);
      } else if (e.type === 'run-start') {
        handle.rpc.emit('live', liveState);
      }
    };
    const run = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Stepwise: proving', cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return ctx.model.use('proving', async (generator) =>
          proveAndVerify(
            {
              problem: problem!,
              file,
              signal: abort.signal,
              options: {
                maxIterations: given.iterations ?? s.prove.maxIterations,
                candidates: given.candidates ?? s.prove.candidates,
                rerankBy: s.prove.rerankBy,
                stopProbability: s.prove.stopProbability,
                stepAggregate: s.prove.stepAggregate,
                verifierPasses: s.verifier.passes,
                maxTokens: given.maxTokens ?? s.model.maxOutputTokens,
                verifierMaxTokens:
                  given.verifierMaxTokens ?? Math.min(s.model.maxOutputTokens, s.prove.verifierMaxTokens),
                alpha: s.rewards.alpha,
                beta: s.rewards.beta,
                constrained: s.prove.constrained,
                // The model's output cap bounds every free segment, the self-evaluation's too.
                selfEvalMaxTokens: Math.min(s.model.maxOutputTokens, s.prove.selfEvaluationMaxTokens),
              },
              onEvent: (e) => {
                if (e.type === 'phase') progress.report({ message: `round ${e.iteration + 1}: ${e.phase}` });
                onEvent(e);
              },
            },
            {
              generator,
              verifier: await ctx.verifier.backend(generator),
              stepScorer: await ctx.prm.scorer(),
              calibrator: shippedCalibrator(),
            },
          ),
        );
      },
    );
    if (flush) clearTimeout(flush);
    const root = ctx.workspaceRoot();
    let savedAs: string | undefined;
    if (root) {
      try {
        savedAs = vscode.workspace.asRelativePath(await saveRun(run, runsDir(root.fsPath)));
      } catch (err) {
        ctx.log.error(`Could not save the run: ${String(err)}`);
        void vscode.window.showWarningMessage(
          `Stepwise could not save the run under .stepwise/runs: ${(err as Error).message}`,
        );
      }
    }
    shown = { run, file: savedAs };
    handle.rpc.emit('run', { run, file: savedAs, partial: false });
    const l = labelling?.();
    if (l) {
      const sel = chosen(run);
      handle.rpc.emit('labels', await l.labelsFor(run, sel.iteration, sel.candidate));
    }
    if (run.status === 'failed')
      void vscode.window.showErrorMessage(
        `Stepwise: the proof run failed: ${run.error?.message ?? 'unknown error'}`,
      );
    return { run, file: savedAs };
  });

  ctx.command('stepwise.showCalibration', async () => {
    const root = ctx.workspaceRoot();
    if (!root)
      throw new Error('Open a workspace folder: calibration reads the runs saved under .stepwise/runs.');
    openPanel<CalibrationHost, ProveView>(ctx, {
      viewType: CALIBRATION,
      bundle: 'calibration',
      title: 'Stepwise: Calibration',
      handlers: () => ({
        calibration: async () => {
          const loaded = await loadRuns(runsDir(root.fsPath));
          return {
            report: calibrationReport(loaded.runs.map((r) => r.run)),
            runs: loaded.runs.length,
            skipped: loaded.skipped.map((s) => `${path.basename(s.file)}: ${s.error}`),
          };
        },
      }),
    });
  });
}

let calibrator: RoundCalibrator | null | undefined;

/**
 * The judging calibrator shipped with Stepwise, read once. Should it be unreadable (a broken
 * install), proving goes on without P(correct) — refinement then stops on the self-evaluation —
 * and the user is told why once.
 */
function shippedCalibrator(): RoundCalibrator | null {
  if (calibrator !== undefined) return calibrator;
  try {
    calibrator = { calibrator: loadCalibrator(), source: DEFAULT_CALIBRATOR_FILE };
  } catch (e) {
    calibrator = null;
    void vscode.window.showWarningMessage(
      `Stepwise: proofs get no calibrated P(correct): ${(e as Error).message} Reinstall the extension to restore it.`,
    );
  }
  return calibrator;
}
