import * as vscode from 'vscode';
import type { StepwiseContext } from '../context';
import { parseProofDocument } from '../../core/steps/document';
import { stepMarkText } from '../../core/judgment/verdictText';
import type { StepScorer } from '../../core/model/stepScorer';
import { stepHeadConfigured, stepHeadOf } from '../stepHeadScorer';

/** What the command returns (and tests read): the scorer and each step's score. */
export interface ScoredSteps {
  /** The PRM's name, or the step head's with its held-out figures ("learned step head on M (…)"). */
  scorer: string;
  scorerKind: StepScorer['info']['kind'];
  /** The step head's threshold: a step scored below it is called wrong (none for a PRM). */
  threshold?: number;
  problem: string;
  steps: { index: number; line: number; text: string; score: number; flagged: boolean }[];
}

const NO_PRM_HINT =
  'Train one with "Stepwise: Train from Annotations" (job prm) and choose "Use as Step Scorer", or set stepwise.prm.modelPath to an exported PRM folder; or set stepwise.prm.stepHeadPath to a step head from `stepwise judgment train-steps`.';

function colourOf(score: number): vscode.ThemeColor {
  if (score >= 0.7) return new vscode.ThemeColor('charts.green');
  if (score >= 0.4) return new vscode.ThemeColor('charts.yellow');
  return new vscode.ThemeColor('charts.red');
}

/**
 * "Stepwise: Score Steps with the Process Reward Model": the steps of the proof document in the
 * editor are scored by the configured PRM — or, without one, by the learned step head
 * `stepwise.prm.stepHeadPath` names, as Prove and Check My Proof do — and each step's score is
 * shown at its end. The marks go as soon as the document is edited, because they describe text
 * that has changed.
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
    const prmLoading = ctx.prm.scorer();
    if (!prmLoading && !stepHeadConfigured())
      throw Object.assign(
        new Error('No step scorer is set (stepwise.prm.modelPath or stepwise.prm.stepHeadPath).'),
        { hint: NO_PRM_HINT },
      );
    const doc = editor.document;
    const proof = parseProofDocument(doc.getText());
    if (!proof.problem || proof.steps.length === 0)
      throw new Error(
        'This document has no problem and solution steps to score: use "## Problem" and "## Solution" sections.',
      );
    const version = doc.version;
    const steps = proof.steps.map((s) => s.text);
    const scoreWith = async (scorer: StepScorer, threshold?: number) => ({
      info: scorer.info,
      threshold,
      scores: await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Window,
          title: `Stepwise: scoring steps with ${scorer.info.name}`,
        },
        () => scorer.scoreSteps(proof.problem, steps),
      ),
    });
    // A PRM comes first, as in Prove; the head reads the generator's own pass over the steps.
    const { info, threshold, scores } = prmLoading
      ? await scoreWith(await prmLoading)
      : await ctx.model.use('scoring steps with the step head', async (generator) => {
          // Nothing else to fall back on here: a head that cannot be used is the error.
          const head = stepHeadOf(generator);
          if (!head) throw new Error('stepwise.prm.stepHeadPath was cleared while the model loaded.');
          return scoreWith(head, head.threshold);
        });
    const marks = proof.steps.map((s, i) => stepMarkText(info, s.index, scores[i], threshold));
    const result: ScoredSteps = {
      scorer: info.name,
      scorerKind: info.kind,
      ...(threshold === undefined ? {} : { threshold }),
      problem: proof.problem,
      steps: proof.steps.map((s, i) => ({
        index: s.index,
        line: doc.positionAt(s.end).line,
        text: s.text,
        score: scores[i],
        flagged: marks[i].flagged,
      })),
    };
    // Scores of text that changed while the model read it would sit on the wrong steps.
    if (doc.version === version) {
      editor.setDecorations(
        decoration,
        result.steps.map((s, i) => {
          const end = doc.lineAt(s.line).range.end;
          return {
            range: new vscode.Range(end, end),
            hoverMessage: marks[i].hover,
            renderOptions: {
              after: {
                contentText: marks[i].label,
                color: s.flagged ? new vscode.ThemeColor('charts.red') : colourOf(s.score),
              },
            },
          };
        }),
      );
      scored.add(doc.uri.toString());
    }
    const weakest = result.steps.reduce((a, b) => (b.score < a.score ? b : a));
    const firstFlagged = result.steps.find((s) => s.flagged);
    const verdict =
      threshold === undefined
        ? `weakest step ${weakest.index + 1} (${weakest.score.toFixed(2)})`
        : firstFlagged
          ? `likely first wrong step ${firstFlagged.index + 1} (${firstFlagged.score.toFixed(2)})`
          : `no step below ${threshold.toFixed(2)}`;
    vscode.window.setStatusBarMessage(
      `$(checklist) ${info.kind === 'prm' ? 'PRM' : 'Step head'}: ${result.steps.length} steps scored · ${verdict}`,
      15_000,
    );
    ctx.log.info(
      `Scored ${result.steps.length} steps with ${info.name}: ${result.steps.map((s) => s.score.toFixed(3)).join(', ')}`,
    );
    return result;
  });
}
