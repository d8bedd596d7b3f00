import * as vscode from 'vscode';
import type { StepwiseContext } from '../context';
import { readSettings } from '../settings';
import { checkProof, proofToCheck } from '../../core/prove/check';
import { checkOptionsFromSettings } from './proveOptions';
import { configuredStepHead } from '../stepHeadScorer';
import type { CalibratorChoice } from '../../core/prove/judgeRound';
import type { ProveRunner } from './proveRunner';

/** What tests and scripts may pass instead of taking the active editor. */
interface CheckArgs {
  file?: string;
  verifierMaxTokens?: number;
}

/**
 * "Stepwise: Check My Proof": the proof the person wrote under `## Solution` is judged as it is —
 * step scores, the verifier's grade and issues, the meta-verifier's check of those issues — and
 * shown in the Prove panel, where each step can be labelled in place (the labels are the
 * document's). The run is saved with kind 'check', so it joins the labels and calibration data.
 */
export function registerCheckProof(
  ctx: StepwiseContext,
  runner: ProveRunner,
  calibrator: () => CalibratorChoice | null,
): void {
  ctx.command('stepwise.check', async (arg?: unknown) => {
    const given: CheckArgs =
      typeof arg === 'object' && arg !== null && !(arg instanceof vscode.Uri) ? (arg as CheckArgs) : {};
    const uri = arg instanceof vscode.Uri ? arg : given.file ? vscode.Uri.file(given.file) : undefined;
    // From the panel (no text editor active), the document last worked in, else the panel's own.
    const panelFile = runner.panelProblem?.file;
    const document = uri
      ? await vscode.workspace.openTextDocument(uri)
      : (ctx.textEditor()?.document ??
        (panelFile ? await vscode.workspace.openTextDocument(vscode.Uri.file(panelFile)) : undefined));
    if (!document)
      throw new Error('Open a proof document with your proof under "## Solution", then run Check My Proof.');
    const found = proofToCheck(document.getText());
    if ('error' in found) throw new Error(found.error);
    const s = readSettings(document.uri);
    const options = checkOptionsFromSettings(s, given);
    return runner.run({
      kind: 'check',
      problem: found.problem,
      file: document.uri.fsPath,
      proof: found.proof,
      title: 'Stepwise: checking your proof',
      budgets: { generate: 0, judge: options.verifierMaxTokens },
      start: (signal, onEvent) =>
        ctx.model.use('checking a proof', async (generator) =>
          checkProof(
            {
              problem: found.problem,
              proof: found.proof,
              file: document.uri.fsPath,
              options,
              signal,
              onEvent,
            },
            {
              verifier: await ctx.verifier.backend(generator),
              // A trained PRM first, then the learned step head over this generator, else the verifier.
              stepScorer: (await ctx.prm.scorer()) ?? configuredStepHead(generator, ctx.log),
              calibrator: calibrator(),
            },
          ),
        ),
    });
  });
}
