import * as vscode from 'vscode';
import { LearnedStepScorer } from '../core/judgment/learnedStepScorer';
import { loadStepHead } from '../core/judgment/stepHead';
import type { ModelBackend } from '../core/model/types';
import { loadPrompt, renderPrompt } from '../core/prove/prompts';
import { readSettings } from './settings';

/** Reasons already shown, so a refused head is explained once, not at every run. */
const warned = new Set<string>();

/**
 * The learned step head named by `stepwise.prm.stepHeadPath`, over the generator Prove and Check My
 * Proof use; read afresh at each run (a small JSON file), so a newly trained head is used without a
 * reload. A head that cannot be used — unreadable, or fitted on another model, whose
 * log-probabilities would make its scores meaningless — is refused: the steps are scored by the
 * verifier, and the person is told why (once per reason) and in the log.
 */
export function configuredStepHead(
  generator: ModelBackend,
  log: vscode.LogOutputChannel,
): LearnedStepScorer | undefined {
  try {
    return stepHeadOf(generator);
  } catch (e) {
    const message = `Step head not used (steps are scored by the verifier): ${(e as Error).message}`;
    log.error(message);
    if (!warned.has(message)) {
      warned.add(message);
      void vscode.window.showWarningMessage(
        `Stepwise: ${message} Train one on this model with \`stepwise judgment train-steps\`, or clear stepwise.prm.stepHeadPath.`,
      );
    }
    return undefined;
  }
}

/**
 * The head the setting names over `generator`, or undefined when the setting is empty; a head that
 * cannot be used is an error saying why (for callers with no other scorer to fall back on).
 */
export function stepHeadOf(generator: ModelBackend): LearnedStepScorer | undefined {
  const file = readSettings().prm.stepHeadPath.trim();
  if (!file) return undefined;
  const template = loadPrompt('generator');
  return new LearnedStepScorer(generator, loadStepHead(file), (problem) => [
    { role: 'user', content: renderPrompt(template, { problem }) },
  ]);
}

/** Whether `stepwise.prm.stepHeadPath` names a head (read without loading it). */
export function stepHeadConfigured(): boolean {
  return readSettings().prm.stepHeadPath.trim() !== '';
}
