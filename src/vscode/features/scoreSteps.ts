import * as vscode from 'vscode';
import type { StepwiseContext } from '../context';
import { parseProofDocument } from '../../core/steps/document';

/** What the command returns (and tests read): the scorer and each step's score. */
export interface ScoredSteps {
  scorer: string;
  problem: string;
  steps: { index: number; line: number; text: string; score: number }[];
}

const NO_PRM_HINT =
  'Train one with "Stepwise: Train from Annotations" (job prm) and choose "Use as Step Scorer", or set stepwise.prm.modelPath to an exported PRM folder.';

function colourOf(score: number): vscode.ThemeColor {
  if (score >= 0.7) return new vscode.ThemeColor('charts.green');
  if (score >= 0.4) return new vscode.ThemeColor('charts.yellow');
  return new vscode.ThemeColor('charts.red');
}

/**
 * "Stepwise: Score Steps with the Process Reward Model": the steps of the proof document in the
 * editor are scored by the configured PRM and each step's P(correct) is shown at its end. The
 * marks go as soon as the document is edited, because they describe text that has changed.
 */
export function registerStepScores(ctx: StepwiseContext): void {
  const decoration = ctx.own(
    vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 1.5em', fontStyle: 'italic' },
    }),
  );
  const scored = new Set<string>();
  ctx.own(
    vscode.workspace.onDidChangeTextDocument((e) => {
      const key = e.document.uri.toString();
      if (!scored.delete(key)) return;
      for (const editor of vscode.window.visibleTextEditors)
        if (editor.document.uri.toString() === key) editor.setDecorations(decoration, []);
    }),
  );

  ctx.command('stepwise.scoreSteps.run', async (): Promise<ScoredSteps | undefined> => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) throw new Error('Open a proof document (with "## Problem" and "## Solution") first.');
    const scorer = ctx.prm.scorer();
    if (!scorer)
      throw Object.assign(new Error('No process reward model is set (stepwise.prm.modelPath).'), {
        hint: NO_PRM_HINT,
      });
    const doc = editor.document;
    const proof = parseProofDocument(doc.getText());
    if (!proof.problem || proof.steps.length === 0)
      throw new Error(
        'This document has no problem and solution steps to score: use "## Problem" and "## Solution" sections.',
      );
    const version = doc.version;
    const prm = await scorer;
    const scores = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Stepwise: scoring steps with ${prm.model.name}` },
      () =>
        prm.scoreSteps(
          proof.problem,
          proof.steps.map((s) => s.text),
        ),
    );
    const result: ScoredSteps = {
      scorer: prm.model.name,
      problem: proof.problem,
      steps: proof.steps.map((s, i) => ({
        index: s.index,
        line: doc.positionAt(s.end).line,
        text: s.text,
        score: scores[i],
      })),
    };
    // Scores of text that changed while the model read it would sit on the wrong steps.
    if (doc.version === version) {
      editor.setDecorations(
        decoration,
        result.steps.map((s) => {
          const end = doc.lineAt(s.line).range.end;
          return {
            range: new vscode.Range(end, end),
            hoverMessage: `Process reward model ${prm.model.name}: P(step ${s.index + 1} is correct) = ${s.score.toFixed(3)}`,
            renderOptions: { after: { contentText: `PRM ${s.score.toFixed(2)}`, color: colourOf(s.score) } },
          };
        }),
      );
      scored.add(doc.uri.toString());
    }
    const weakest = result.steps.reduce((a, b) => (b.score < a.score ? b : a));
    vscode.window.setStatusBarMessage(
      `$(checklist) PRM: ${result.steps.length} steps scored · weakest step ${weakest.index + 1} (${weakest.score.toFixed(2)})`,
      15_000,
    );
    ctx.log.info(
      `Scored ${result.steps.length} steps with ${prm.model.name}: ${result.steps.map((s) => s.score.toFixed(3)).join(', ')}`,
    );
    return result;
  });
}
