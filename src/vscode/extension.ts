import * as vscode from 'vscode';
import { performance } from 'node:perf_hooks';
import { StepwiseContext } from './context';
import { createModelStatusItem } from './statusBar';
import { features } from './features/index';
import { RENAMED_COMMANDS } from './commandAliases';

/** What `activate` hands to other extensions and to the integration tests. */
export interface StepwiseApi {
  readonly activationMs: number;
  readonly context: StepwiseContext;
}

let current: StepwiseContext | undefined;

export function activate(extension: vscode.ExtensionContext): StepwiseApi {
  const started = performance.now();
  const ctx = new StepwiseContext(extension);
  current = ctx;
  extension.subscriptions.push(ctx);
  ctx.own(createModelStatusItem(ctx.model));
  ctx.command('stepwise.log.show', () => ctx.log.show());
  for (const feature of features) {
    try {
      feature.register(ctx);
    } catch (err) {
      // One broken feature must not take the others down; VS Code would not show this error itself.
      ctx.reportError(`Stepwise could not start its ${feature.name} feature`, err);
    }
  }
  // Old command ids keep working for users' keybindings and scripts.
  for (const [old, renamed] of Object.entries(RENAMED_COMMANDS))
    ctx.command(old, (...args) => vscode.commands.executeCommand(renamed, ...args));
  const activationMs = performance.now() - started;
  ctx.log.info(`Activated in ${activationMs.toFixed(1)} ms`);
  return { activationMs, context: ctx };
}

export function deactivate(): void {
  current?.dispose();
  current = undefined;
}
