import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StepwiseContext } from '../context';
import { pythonExtensionInterpreter } from '../python';
import { readSettings } from '../settings';
import { findTrainerPython, TrainerSetupError } from '../../core/trainer/python';
import { setUpTrainerEnvironment } from '../../core/trainer/setup';

const SET_UP = 'Set Up the Trainer Environment';

/**
 * The trainer's interpreter: the setting, the Python extension's active environment, the venv
 * Stepwise sets up, a source checkout's .venv. When none has the trainer, offers to set one up.
 */
export async function trainerPython(ctx: StepwiseContext): Promise<string | undefined> {
  const managedVenv = path.join(ctx.extension.globalStorageUri.fsPath, 'trainer-venv');
  const find = async () =>
    findTrainerPython({
      setting: readSettings().trainer.pythonPath || undefined,
      pythonExtension: await pythonExtensionInterpreter(ctx.log),
      managedVenv,
      // A source checkout (the extension folder has the project's .venv) trains with that.
      repositoryRoot: fs.existsSync(path.join(ctx.extension.extensionPath, '.venv'))
        ? ctx.extension.extensionPath
        : undefined,
    });
  try {
    return await find();
  } catch (err) {
    if (!(err instanceof TrainerSetupError)) throw err;
    ctx.log.warn(`${err.message} ${err.hint}`);
    const choice = await vscode.window.showWarningMessage(
      `Stepwise: no Python environment with the trainer (PyTorch, TRL) was found. Set one up in ${managedVenv}? It downloads about 1–3 GB.`,
      { detail: err.message },
      SET_UP,
      'Open Settings',
    );
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'stepwise.trainer.pythonPath');
      return undefined;
    }
    if (choice !== SET_UP) return undefined;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Stepwise: setting up the trainer environment',
        cancellable: true,
      },
      (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return setUpTrainerEnvironment({
          basePython: process.platform === 'win32' ? 'python' : 'python3',
          venvDir: managedVenv,
          trainerDir: path.join(ctx.extension.extensionPath, 'trainer'),
          signal: abort.signal,
          onLine: (line) => {
            ctx.log.info(`[setup] ${line}`);
            progress.report({ message: line.slice(0, 100) });
          },
        });
      },
    );
    return find();
  }
}
