import type * as vscode from 'vscode';
import { LearnedStepScorer } from '../core/judgment/learnedStepScorer';
import { loadStepHead } from '../core/judgment/stepHead';
import type { ModelBackend } from '../core/model/types';
import { loadPrompt, renderPrompt } from '../core/prove/prompts';
import { readSettings } from './settings';

/**
 * The learned step head named by `stepwise.prm.stepHeadPath`, over the generator Prove uses; read
 * afresh at each run (a small JSON file), so a newly trained head is used without a reload. A file
 * that cannot be used is logged and Prove falls back to the verifier's step scores.
 */
export function configuredStepHead(
  generator: ModelBackend,
  log: vscode.LogOutputChannel,
): LearnedStepScorer | undefined {
  const file = readSettings().prm.stepHeadPath.trim();
  if (!file) return undefined;
  try {
    const template = loadPrompt('generator');
    return new LearnedStepScorer(generator, loadStepHead(file), (problem) => [
      { role: 'user', content: renderPrompt(template, { problem }) },
    ]);
  } catch (e) {
    log.error(`Step head not used (steps are scored by the verifier): ${(e as Error).message}`);
    return undefined;
  }
}
