import * as vscode from 'vscode';
import * as path from 'node:path';
import { defaultModelDir } from '../../core/model/defaults';
import { listLadder } from '../../core/model/ladder/local';
import { offeredVariants } from '../../core/model/offeredVariants';
import { VARIANT_FILES } from '../../core/model/onnx/modelFolder';
import type { StepwiseContext } from '../context';
import { API_KEY_SECRET } from '../modelSession';
import { readSettings, updateSettings } from '../settings';
import { installLadderModel, useLadderModel } from './ladder';
import { shippedEvalResults } from './evalReport';
import { calibrationFact, ladderModelDetail, modelFigures } from '../../core/eval/modelFigures';
import { calibratedModels } from '../shippedCalibrators';

export function registerModelCommands(ctx: StepwiseContext): void {
  ctx.command('stepwise.model.select', () => selectModel(ctx));
  ctx.command('stepwise.model.setApiKey', async () => {
    const key = await vscode.window.showInputBox({
      title: 'Stepwise: API key of the OpenAI-compatible endpoint',
      prompt: 'Kept in VS Code SecretStorage, never in settings. Leave empty to remove the key.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    if (key) await ctx.extension.secrets.store(API_KEY_SECRET, key);
    else await ctx.extension.secrets.delete(API_KEY_SECRET);
    await ctx.model.unload();
    void vscode.window.showInformationMessage(
      key ? 'Stepwise: API key saved.' : 'Stepwise: API key removed.',
    );
  });
}

type Choice = vscode.QuickPickItem & { apply?: () => Promise<void> };

/** The ladder's models: what each is good for, its size and speed, whether installed, which is in use. */
async function ladderChoices(ctx: StepwiseContext): Promise<Choice[]> {
  const { model } = readSettings();
  const inUse = model.backend === 'onnx' ? model.onnx.path || defaultModelDir() : '';
  const entries = await listLadder();
  // Accuracy and speed are quoted from the shipped evaluations, the figures the report shows; the
  // catalog's smoke test (with its n, marked few items) only for models never evaluated.
  const evaluations = shippedEvalResults().map((e) => e.result);
  const calibrated = calibratedModels();
  return [
    { label: "Stepwise's models (local, offline)", kind: vscode.QuickPickItemKind.Separator },
    ...entries.map<Choice>(({ model, dir, state, diskBytes }) => {
      const using = path.resolve(dir) === path.resolve(inUse);
      const installed = state === 'installed';
      const status = using ? 'in use' : installed ? 'installed' : 'not installed: select to install';
      return {
        label: `${using ? '$(pass-filled)' : installed ? '$(package)' : '$(cloud-download)'} ${model.displayName}`,
        // The detail line is cut to the row's width: what a person must see goes up here.
        description: [model.rung, status, calibrationFact(calibrated?.has(model.displayName))]
          .filter(Boolean)
          .join(' · '),
        detail: ladderModelDetail(model, modelFigures(evaluations, model.displayName), { diskBytes }),
        apply: async () => {
          if (installed) await useLadderModel(dir);
          else await installLadderModel(ctx, model.id, { use: true });
        },
      };
    }),
    { label: 'Other models', kind: vscode.QuickPickItemKind.Separator },
  ];
}

const VARIANT_WORDS = {
  exact: 'every GGUF block as the file has it',
  fast: '5/6-bit tensors re-quantized to 4-bit blocks: faster, not exact',
};

/**
 * The variants of the model in use that exist on disk and load (core/model/offeredVariants.ts): a
 * ladder model's exact and fast folders, or the weights files (fp32, q8, q4) of any other folder.
 */
async function variantChoices(): Promise<Choice[]> {
  const { model } = readSettings();
  if (model.backend !== 'onnx') return [];
  const inUse = path.resolve(model.onnx.path || defaultModelDir());
  return (await offeredVariants(inUse)).map<Choice>((v) =>
    v.kind === 'ladder'
      ? {
          label: `$(settings) ${v.modelName}: ${v.variant}`,
          description: path.resolve(v.dir) === inUse ? 'current' : undefined,
          detail: VARIANT_WORDS[v.variant],
          apply: () => useLadderModel(v.dir),
        }
      : {
          label: `$(settings) ONNX weights: ${v.weights}`,
          description: `${v.weights === model.onnx.variant ? 'current · ' : ''}${VARIANT_FILES[v.weights]} of ${path.basename(v.dir)}`,
          apply: () => updateSettings({ 'model.onnx.variant': v.weights }, vscode.ConfigurationTarget.Global),
        },
  );
}

async function selectModel(ctx: StepwiseContext): Promise<void> {
  const current = readSettings().model;
  const target = vscode.ConfigurationTarget.Global;
  const choices: Choice[] = [
    ...(await ladderChoices(ctx)),
    ...(await variantChoices()),
    {
      label: '$(folder-opened) ONNX model folder…',
      description: 'an onnx-community-style folder, e.g. exported by the trainer',
      apply: async () => {
        const picked = await vscode.window.showOpenDialog({
          canSelectFolders: true,
          canSelectFiles: false,
          title: 'Select an ONNX model folder',
        });
        if (!picked?.[0]) return;
        await updateSettings({ 'model.backend': 'onnx', 'model.onnx.path': picked[0].fsPath }, target);
      },
    },
    {
      label: '$(cloud) OpenAI-compatible endpoint…',
      description: 'llama.cpp server, vLLM, Ollama, …',
      apply: async () => {
        const baseUrl = await vscode.window.showInputBox({
          title: 'Endpoint base URL',
          value: current.openai.baseUrl,
          validateInput: (v) => (/^https?:\/\//.test(v) ? undefined : 'Start with http:// or https://'),
        });
        if (!baseUrl) return;
        const model = await vscode.window.showInputBox({
          title: 'Model name on the endpoint',
          value: current.openai.model,
        });
        if (model === undefined) return;
        await updateSettings(
          { 'model.openai.baseUrl': baseUrl, 'model.openai.model': model, 'model.backend': 'openai' },
          target,
        );
      },
    },
    {
      label: '$(key) Set endpoint API key…',
      apply: async () => void (await vscode.commands.executeCommand('stepwise.model.setApiKey')),
    },
    {
      label: '$(cloud-download) Download an ONNX model from a hub…',
      description: 'an onnx-community-style repository',
      apply: async () => void (await vscode.commands.executeCommand('stepwise.model.download')),
    },
  ];
  const pick = await vscode.window.showQuickPick(choices, {
    title: 'Stepwise: Select Model',
    placeHolder: describeCurrent(ctx),
  });
  if (!pick?.apply) return;
  await pick.apply();
}

function describeCurrent(ctx: StepwiseContext): string {
  const s = ctx.model.state;
  return s.kind === 'ready' || s.kind === 'busy'
    ? `Current: ${s.info.name} on ${s.info.device}`
    : 'Choose where the model runs';
}
