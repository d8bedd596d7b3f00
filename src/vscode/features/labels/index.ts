import * as vscode from 'vscode';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { StepwiseContext } from '../../context';
import { readSettings, updateSettings } from '../../settings';
import { stepAt } from '../../../core/steps/document';
import { splitSteps } from '../../../core/steps/split';
import { problemIdOf, solutionIdOf } from '../../../core/steps/document';
import { nextToLabel, type Rating } from '../../../core/labels/index';
import { loadRuns } from '../../../core/prove/runStore';
import { runsDir } from '../../../core/runs/folder';
import type { ProveRun } from '../../../core/prove/runSchema';
import type { PanelLabelling } from '../prove';
import type { StepLabelView } from '../../../shared/protocols/prove';
import { LabelService, PROOF_LANGUAGES } from './service';
import { LabelDecorations } from './decorations';
import { LabelsTreeProvider } from './view';

const RATING_NAME: Record<string, string> = { '1': '+1', '0': '0', '-1': '−1' };

export interface LabelCommandResult {
  stepIndex: number;
  rating: Rating;
  /** Milliseconds from the command to the label being durable, and to the decoration shown. */
  durableMs: number;
  decoratedMs: number;
}

/** Step labelling in proof documents: commands, gutter marks, hovers, the Labels view, the queue. */
export function registerLabels(ctx: StepwiseContext): PanelLabelling {
  const service = ctx.own(new LabelService(ctx.log));
  const decorations = ctx.own(new LabelDecorations(ctx.extension.extensionUri));
  const tree = ctx.own(new LabelsTreeProvider(service));
  ctx.own(vscode.window.registerTreeDataProvider('stepwise.labels', tree));

  const refresh = async (editor: vscode.TextEditor | undefined) => {
    if (!editor) return;
    const doc = service.parse(editor.document);
    const root = service.rootOf(editor.document.uri);
    if (!doc || !root) return decorations.clear(editor);
    decorations.apply(
      editor,
      await service.stepLabels(root, service.solutionIdOf(editor.document), doc.steps),
    );
  };
  const refreshVisible = () => Promise.all(vscode.window.visibleTextEditors.map(refresh));
  ctx.own(vscode.window.onDidChangeVisibleTextEditors(() => void refreshVisible()));
  let pending: NodeJS.Timeout | undefined;
  ctx.own(
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (!PROOF_LANGUAGES.has(e.document.languageId)) return;
      // Typing re-checks staleness after a short pause rather than on every keystroke.
      clearTimeout(pending);
      pending = setTimeout(() => {
        void refreshVisible();
        tree.refresh();
      }, 250);
    }),
  );
  ctx.own({ dispose: () => clearTimeout(pending) });
  void refreshVisible();

  const labelAtCursor = async (
    rating: Rating,
    at?: { uri?: vscode.Uri; line?: number },
  ): Promise<LabelCommandResult | undefined> => {
    const started = performance.now();
    const editor = at?.uri
      ? vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === at.uri!.toString())
      : vscode.window.activeTextEditor;
    if (!editor) throw new Error('Open a proof document (## Problem and ## Solution) to label its steps.');
    const doc = service.parse(editor.document);
    if (!doc) throw new Error('This document has no "## Solution" section with steps to label.');
    const root = service.rootOf(editor.document.uri);
    if (!root) throw new Error('Open a folder: labels are stored in its .stepwise/ folder.');
    const offset = editor.document.offsetAt(
      at?.line !== undefined ? new vscode.Position(at.line, 0) : editor.selection.active,
    );
    const step = stepAt(doc, offset);
    if (!step) throw new Error('Put the cursor on a step of the solution.');
    const solutionId = service.solutionIdOf(editor.document);
    const states = await service.stepLabels(root, solutionId, doc.steps);
    if (readSettings(editor.document.uri).labels.stopAtFirstError) {
      const firstError = states.find((s) => s.label?.rating === -1 && !s.stale);
      if (firstError && firstError.step.index < step.index) {
        void vscode.window.showInformationMessage(
          `"Stop at first error" is on: step ${firstError.step.index + 1} is already wrong, so steps after it are not labelled.`,
        );
        return undefined;
      }
    }
    await service.label(
      root,
      { problemId: doc.problemId, problemText: doc.problem, solutionId },
      step,
      rating,
      'editor',
    );
    const durableMs = performance.now() - started;
    await refresh(editor);
    const decoratedMs = performance.now() - started;
    ctx.log.info(
      `Labelled step ${step.index + 1} ${RATING_NAME[String(rating)]} (durable after ${durableMs.toFixed(1)} ms, decorated after ${decoratedMs.toFixed(1)} ms)`,
    );
    // Keyboard-only labelling: the cursor moves on to the next step.
    const next = doc.steps[step.index + 1];
    if (next && at?.line === undefined) {
      const pos = editor.document.positionAt(next.start);
      editor.selection = new vscode.Selection(pos, pos);
      editor.revealRange(new vscode.Range(pos, pos));
    }
    const left =
      states.filter((s) => !s.label || s.stale).length -
      (states[step.index].label && !states[step.index].stale ? 0 : 1);
    vscode.window.setStatusBarMessage(
      `Stepwise: step ${step.index + 1} labelled ${RATING_NAME[String(rating)]} · ${left} left`,
      3000,
    );
    return { stepIndex: step.index, rating, durableMs, decoratedMs };
  };

  const labelCommand = (rating: Rating) => (arg?: unknown) =>
    labelAtCursor(rating, (arg ?? undefined) as { uri?: vscode.Uri; line?: number } | undefined);
  ctx.command('stepwise.labels.positive', labelCommand(1));
  ctx.command('stepwise.labels.neutral', labelCommand(0));
  ctx.command('stepwise.labels.negative', labelCommand(-1));
  ctx.command('stepwise.labels.undo', async () => {
    const restored = await service.undo();
    if (!restored)
      return void vscode.window.showInformationMessage('Stepwise: no label to undo in this session.');
    await refreshVisible();
    vscode.window.setStatusBarMessage(`Stepwise: label of step ${restored.stepIndex + 1} undone`, 3000);
    return restored;
  });
  // Toggles run one after another: a second one that read the setting before the first had
  // written it would write the same value, and two quick toggles would leave it flipped.
  let toggling: Promise<unknown> = Promise.resolve();
  ctx.command('stepwise.labels.toggleStopAtFirstError', () => {
    const toggle = toggling.then(async () => {
      const next = !readSettings().labels.stopAtFirstError;
      await updateSettings({ 'labels.stopAtFirstError': next }, vscode.ConfigurationTarget.Workspace);
      void vscode.window.showInformationMessage(
        `Stepwise: "stop at first error" labelling is ${next ? 'on' : 'off'}.`,
      );
    });
    toggling = toggle.catch(() => undefined);
    return toggle;
  });

  // Hover actions on every step: label it without leaving the mouse.
  ctx.own(
    vscode.languages.registerHoverProvider(
      [...PROOF_LANGUAGES].map((language) => ({ language })),
      {
        provideHover: (document, position) => {
          const doc = service.parse(document);
          const step = doc && stepAt(doc, document.offsetAt(position));
          if (!step || !doc?.solution || document.offsetAt(position) > step.end + 1) return undefined;
          const link = (command: string, text: string) =>
            `[${text}](command:${command}?${encodeURIComponent(JSON.stringify([{ uri: document.uri, line: position.line }]))})`;
          const md = new vscode.MarkdownString(
            `**Step ${step.index + 1}** — label: ${link('stepwise.labels.positive', '+1 correct')} · ${link('stepwise.labels.neutral', '0 neutral')} · ${link('stepwise.labels.negative', '−1 wrong')}`,
          );
          md.isTrusted = {
            enabledCommands: [
              'stepwise.labels.positive',
              'stepwise.labels.neutral',
              'stepwise.labels.negative',
            ],
          };
          return new vscode.Hover(md);
        },
      },
    ),
  );

  ctx.command('stepwise.labels.nextSolution', async () => {
    const root = ctx.workspaceRoot();
    if (!root)
      throw new Error('Open a folder: the queue is built from the runs saved in its .stepwise/runs.');
    const loaded = await loadRuns(runsDir(root.fsPath));
    const labelled = new Set((await service.records(root.fsPath)).map((r) => r.solutionId));
    const queue = nextToLabel(
      loaded.runs.map((r) => ({ run: r.run, file: r.file })),
      labelled,
    );
    const next = queue.find((q) => !labelled.has(`doc:${queueDocPath(q.runId, q.iteration, q.candidate)}`));
    if (!next) {
      void vscode.window.showInformationMessage(
        loaded.runs.length
          ? 'Stepwise: every saved solution is labelled. Run "Prove and Self-Verify" for more.'
          : 'Stepwise: no saved runs yet. Run "Prove and Self-Verify" first; its runs feed this queue.',
      );
      return undefined;
    }
    const file = vscode.Uri.file(
      path.join(root.fsPath, queueDocPath(next.runId, next.iteration, next.candidate)),
    );
    const body = `<!-- stepwise:id=${problemIdOf(next.problem)} -->\n<!-- From run ${next.runId}, round ${next.iteration + 1}, candidate ${next.candidate + 1}: ${next.why}. -->\n\n## Problem\n\n${next.problem}\n\n## Solution\n\n${next.proof.trim()}\n`;
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(body));
    const editor = await vscode.window.showTextDocument(file);
    const doc = service.parse(editor.document);
    if (doc?.steps[0]) {
      const pos = editor.document.positionAt(doc.steps[0].start);
      editor.selection = new vscode.Selection(pos, pos);
    }
    tree.refresh();
    vscode.window.setStatusBarMessage(
      `Stepwise: ${queue.length} solution(s) in the queue; this one: ${next.why}`,
      6000,
    );
    return { file: file.fsPath, item: next, queued: queue.length };
  });

  // The Prove panel labels a candidate's steps through the same store. A checked proof is the
  // person's own document: its labels are the document's (shown in its gutter too, and stale once
  // the step is edited); a generated candidate never changes, so its text is its identity.
  const candidateSolution = (run: ProveRun, iteration: number, candidate: number) => {
    const c = run.iterations[iteration]?.candidates[candidate];
    if (!c) throw new Error('That candidate is not in the run.');
    const proof = c.parsed.proof;
    const document =
      run.kind === 'check' && run.problem.file
        ? vscode.workspace.textDocuments.find((d) => d.uri.fsPath === run.problem.file)
        : undefined;
    const solutionId = document
      ? service.solutionIdOf(document)
      : run.kind === 'check' && run.problem.file
        ? `doc:${vscode.workspace.asRelativePath(run.problem.file, false)}`
        : solutionIdOf(proof);
    return { solutionId, steps: splitSteps(proof) };
  };
  const views = async (
    root: string,
    run: ProveRun,
    iteration: number,
    candidate: number,
  ): Promise<StepLabelView[]> => {
    const { solutionId, steps } = candidateSolution(run, iteration, candidate);
    const states = await service.stepLabels(root, solutionId, steps);
    return states
      .filter((s) => s.label && s.label.rating !== null)
      .map((s) => ({ stepIndex: s.step.index, rating: s.label!.rating as Rating, stale: s.stale }));
  };
  return {
    labelsFor: async (run, iteration, candidate) => {
      const root = ctx.workspaceRoot();
      return root ? views(root.fsPath, run, iteration, candidate) : [];
    },
    label: async (run, iteration, candidate, stepIndex, rating) => {
      const root = ctx.workspaceRoot();
      if (!root) throw new Error('Open a folder: labels are stored in its .stepwise/ folder.');
      const { solutionId, steps } = candidateSolution(run, iteration, candidate);
      const step = steps[stepIndex];
      if (!step) throw new Error(`The proof has no step ${stepIndex + 1}.`);
      await service.label(
        root.fsPath,
        {
          problemId: problemIdOf(run.problem.text),
          problemText: run.problem.text,
          solutionId,
        },
        step,
        rating,
        'panel',
      );
      // The document's gutter shows the label at once.
      await refreshVisible();
      tree.refresh();
      return views(root.fsPath, run, iteration, candidate);
    },
  };
}

function queueDocPath(runId: string, iteration: number, candidate: number): string {
  return path.join('.stepwise', 'to-label', `${runId.slice(0, 8)}-r${iteration + 1}-c${candidate + 1}.md`);
}
