import * as vscode from 'vscode';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { openPanel, singletonPanel, type SingletonPanel } from '../panels/panelHost';
import { readSettings } from '../settings';
import { configuredStepHead } from '../stepHeadScorer';
import { proveAndVerify } from '../../core/prove/prove';
import { loadRuns } from '../../core/prove/runStore';
import { runsDir } from '../../core/runs/folder';
import { calibrationReport } from '../../core/prove/calibration';
import type { CalibrationHost, ProveHost, ProveView } from '../../shared/protocols/prove';
import { chosenOf, ProveRunner, type PanelLabelling } from './proveRunner';
import { registerCheckProof } from './checkProof';
import { proveOptionsFromSettings, type ProveArgs } from './proveOptions';
import { problemAt, problemFromDocument } from '../../core/steps/document';
import { shippedCalibrators } from '../shippedCalibrators';

const VIEW_TYPE = 'stepwise.prove';
const CALIBRATION = 'stepwise.calibration';

export type { PanelLabelling } from './proveRunner';

export function registerProve(ctx: StepwiseContext, labelling?: () => PanelLabelling | undefined): void {
  const panel: SingletonPanel<ProveHost, ProveView> = singletonPanel<ProveHost, ProveView>(ctx, {
    viewType: VIEW_TYPE,
    bundle: 'prove',
    title: 'Stepwise: Prove and Self-Verify',
    styles: ['katex/katex.min.css'],
    handlers: () => ({
      state: async () => {
        const { shown } = runner;
        const l = labelling?.();
        const sel = shown.run && chosenOf(shown.run);
        const labels =
          shown.run && l && sel ? await l.labelsFor(shown.run, sel.iteration, sel.candidate) : [];
        return { ...shown, labels };
      },
      cancel: () => {
        runner.cancel();
        return null;
      },
      label: async ({ iteration, candidate, stepIndex, rating }) => {
        const l = labelling?.();
        const shown = runner.shown.run;
        if (!l || !shown) throw new Error('Labelling is not available: open a workspace folder first.');
        return { saved: true, labels: await l.label(shown, iteration, candidate, stepIndex, rating) };
      },
    }),
    column: vscode.ViewColumn.Beside,
    preserveFocus: true,
  });
  const runner: ProveRunner = new ProveRunner(ctx, panel, () => labelling?.());
  registerCheckProof(ctx, runner, shippedCalibrators);

  ctx.command('stepwise.prove', async (arg?: unknown) => {
    const given =
      typeof arg === 'object' && arg !== null && !(arg instanceof vscode.Uri)
        ? (arg as ProveArgs & { problem?: string; file?: string })
        : {};
    // The panel may hold the focus (after Check My Proof, or a label clicked): then the document is
    // the one last worked in, and without one the problem the panel shows.
    const editor = ctx.textEditor();
    let problem = given.problem;
    let file: string | null = given.file ?? null;
    if (!problem && !editor && runner.panelProblem) ({ problem, file } = runner.panelProblem);
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
    const options = proveOptionsFromSettings(s, given);
    return runner.run({
      kind: 'prove',
      problem,
      file,
      title: 'Stepwise: proving',
      budgets: { generate: options.maxTokens, judge: options.verifierMaxTokens },
      start: (signal, onEvent) =>
        ctx.model.use('proving', async (generator) =>
          proveAndVerify(
            { problem: problem!, file, signal, options, onEvent },
            {
              generator,
              verifier: await ctx.verifier.backend(generator),
              stepScorer: (await ctx.prm.scorer()) ?? configuredStepHead(generator, ctx.log),
              calibrator: shippedCalibrators(),
            },
          ),
        ),
    });
  });

  ctx.command('stepwise.calibration.show', async () => {
    const root = ctx.workspaceRoot();
    if (!root)
      throw new Error('Open a workspace folder: calibration reads the runs saved under .stepwise/runs.');
    openPanel<CalibrationHost, ProveView>(ctx, {
      viewType: CALIBRATION,
      bundle: 'calibration',
      title: 'Stepwise: Calibration',
      handlers: () => ({
        calibration: async (params) => {
          const loaded = await loadRuns(runsDir(root.fsPath));
          // From the webview: only a string names a model; anything else means every model.
          const model = typeof params?.model === 'string' ? params.model : null;
          return {
            report: calibrationReport(
              loaded.runs.map((r) => r.run),
              { model },
            ),
            runs: loaded.runs.length,
            skipped: loaded.skipped.map((s) => `${path.basename(s.file)}: ${s.error}`),
          };
        },
      }),
    });
  });
}
