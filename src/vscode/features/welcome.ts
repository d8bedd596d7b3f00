import * as vscode from 'vscode';
import type { StepwiseContext } from '../context';
import { singletonPanel } from '../panels/panelHost';
import type { WelcomeHost, WelcomeStatus, WelcomeView } from '../../shared/protocols/welcome';
import type { ModelState } from '../modelSession';

const VIEW_TYPE = 'stepwise.welcome';
// Commands the welcome page may run: a webview never gets to run arbitrary commands.
const WELCOME_COMMANDS = new Set([
  'stepwise.prove',
  'stepwise.model.select',
  'stepwise.playground.open',
  'stepwise.labels.nextSolution',
  'stepwise.practice.generate',
  'stepwise.train.run',
  'stepwise.log.show',
]);

export function describeModelState(state: ModelState): { modelState: string; modelDetail: string } {
  switch (state.kind) {
    case 'idle':
      return { modelState: 'Not loaded', modelDetail: 'The model loads the first time a feature needs it.' };
    case 'loading':
      return { modelState: 'Loading', modelDetail: state.name };
    case 'ready':
      return {
        modelState: 'Ready',
        modelDetail: `${state.info.name} on ${state.info.device} (${state.info.backend})`,
      };
    case 'busy':
      return { modelState: 'Working', modelDetail: `${state.info.name}: ${state.what}` };
    case 'error':
      return { modelState: 'Error', modelDetail: `${state.message}${state.hint ? ` — ${state.hint}` : ''}` };
  }
}

export function registerWelcome(ctx: StepwiseContext): void {
  const status = (): WelcomeStatus => ({
    version: String(ctx.extension.extension.packageJSON.version),
    ...describeModelState(ctx.model.state),
    workspaceTrusted: vscode.workspace.isTrusted,
  });
  const panel = singletonPanel<WelcomeHost, WelcomeView>(ctx, {
    viewType: VIEW_TYPE,
    bundle: 'welcome',
    title: 'Welcome to Stepwise',
    handlers: () => ({
      status: () => status(),
      run: async ({ command }) => {
        if (!WELCOME_COMMANDS.has(command)) throw new Error(`The welcome page cannot run "${command}".`);
        await vscode.commands.executeCommand(command);
        return null;
      },
    }),
    // The page follows the model's state while it is open.
    onOpen: (handle) => ctx.model.onDidChangeState(() => handle.rpc.emit('status', status())),
  });
  ctx.command('stepwise.welcome.show', () => void panel.show());
}
