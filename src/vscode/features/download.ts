import * as vscode from 'vscode';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { updateSettings } from '../settings';
import { downloadModel } from '../../core/model/download/index';
import { VARIANT_FILES, type OnnxVariant } from '../../core/model/onnx/modelFolder';

// Only the weights the local backend loads are offered (see stepwise.model.onnx.variant);
// test/unit/model/offeredVariants.test.ts holds the download's file names to the loader's.
type LoadableVariant = OnnxVariant;
const LOADABLE_VARIANTS = Object.keys(VARIANT_FILES) as LoadableVariant[];

/** Where downloaded models live: the extension's global storage, one folder per repository. */
export function downloadedModelDir(ctx: StepwiseContext, repoId: string): string {
  return path.join(ctx.extension.globalStorageUri.fsPath, 'models', repoId.replace(/[^\w.-]+/g, '--'));
}

export function registerDownload(ctx: StepwiseContext): void {
  ctx.command('stepwise.model.download', async (arg?: unknown) => {
    const given = (arg ?? {}) as {
      repoId?: string;
      variant?: LoadableVariant;
      baseUrl?: string;
      select?: boolean;
    };
    const repoId =
      given.repoId ??
      (await vscode.window.showInputBox({
        title: 'Stepwise: Download Model (1/2)',
        prompt:
          'Hugging Face model id of an onnx-community-style folder (config.json, tokenizer.json, onnx/model*.onnx)',
        placeHolder: 'onnx-community/Qwen2.5-0.5B-Instruct',
        validateInput: (v) => (/^[\w.-]+\/[\w.-]+$/.test(v.trim()) ? undefined : 'Use the form owner/name'),
      }));
    if (!repoId) return undefined;
    const variant =
      given.variant ??
      ((
        await vscode.window.showQuickPick(
          LOADABLE_VARIANTS.map((v) => ({
            label: v,
            description:
              v === 'q4' ? 'smallest, fastest on CPU' : v === 'fp32' ? 'full precision' : undefined,
          })),
          { title: 'Stepwise: Download Model (2/2) — which weights?' },
        )
      )?.label as LoadableVariant | undefined);
    if (!variant) return undefined;
    const baseUrl = given.baseUrl ?? 'https://huggingface.co';
    const destDir = downloadedModelDir(ctx, repoId.trim());
    // Downloads are large and leave the machine: the user confirms first.
    if (!given.repoId) {
      const ok = await vscode.window.showInformationMessage(
        `Download ${repoId} (${variant}) from ${new URL(baseUrl).host} into Stepwise's storage?`,
        {
          modal: true,
          detail: `${destDir}\nInterrupted downloads resume; every file is checked against its size and SHA-256.`,
        },
        'Download',
      );
      if (ok !== 'Download') return undefined;
    }
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Stepwise: downloading ${repoId}`,
        cancellable: true,
      },
      (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        let reported = 0;
        return downloadModel({
          repoId: repoId.trim(),
          variant,
          baseUrl,
          destDir,
          signal: abort.signal,
          onProgress: (p) => {
            const pct = p.totalBytes ? (100 * p.bytes) / p.totalBytes : 0;
            progress.report({
              message: `${p.file} — ${(p.bytes / 1e6).toFixed(1)} of ${(p.totalBytes / 1e6).toFixed(1)} MB`,
              increment: pct - reported,
            });
            reported = pct;
          },
        });
      },
    );
    ctx.log.info(
      `Downloaded ${repoId} (${variant}) into ${result.destDir}: ${result.bytesFetched} bytes fetched`,
    );
    const use =
      given.select ??
      (await vscode.window.showInformationMessage(`Stepwise: ${repoId} is ready.`, 'Use This Model')) ===
        'Use This Model';
    if (use) {
      await updateSettings(
        { 'model.backend': 'onnx', 'model.onnx.variant': variant, 'model.onnx.path': result.destDir },
        vscode.ConfigurationTarget.Global,
      );
    }
    return result;
  });
}
