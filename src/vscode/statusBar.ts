import * as vscode from 'vscode';
import type { ModelSession, ModelState } from './modelSession';

/** "Qwen2.5-Coder-0.5B" for "Qwen2.5-Coder-0.5B-Instruct": the status bar has little room. */
export function shortName(name: string): string {
  return name.replace(/[-_ ]Instruct$/i, '');
}

/** The status-bar item that shows the model: backend, name, device and load state. */
export function createModelStatusItem(session: ModelSession): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('stepwise.model', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Stepwise Model';
  const render = (state: ModelState) => {
    item.backgroundColor = undefined;
    switch (state.kind) {
      case 'idle':
        item.text = '$(circle-outline) Stepwise · not loaded';
        item.tooltip = 'Stepwise: the model loads on first use. Click to select a model.';
        item.command = 'stepwise.model.select';
        // Which model will load is read from the settings (and its install record) asynchronously.
        void session.configuredName().then(
          (name) => {
            if (session.state.kind !== 'idle') return;
            item.text = `$(circle-outline) ${shortName(name)} · not loaded`;
            item.tooltip = `Stepwise: ${name} loads on first use. Click to select a model.`;
          },
          () => undefined,
        );
        break;
      case 'loading':
        item.text = `$(loading~spin) Stepwise: loading ${state.name}`;
        item.tooltip = `Loading ${state.name}…`;
        item.command = 'stepwise.log.show';
        break;
      case 'ready':
        item.text = `$(check) Stepwise: ${state.info.name} · ${state.info.device.toUpperCase()}`;
        item.tooltip = `${state.info.backend} backend, ${state.info.name} on ${state.info.device}, context ${state.info.contextWindow} tokens. Click to select a model.`;
        item.command = 'stepwise.model.select';
        break;
      case 'busy':
        item.text = `$(sync~spin) Stepwise: ${state.what}`;
        item.tooltip = `${state.info.name} on ${state.info.device}: ${state.what}`;
        item.command = 'stepwise.log.show';
        break;
      case 'error':
        item.text = '$(error) Stepwise: model error';
        item.tooltip = `${state.message}${state.hint ? `\n${state.hint}` : ''}\nClick to select another model.`;
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        item.command = 'stepwise.model.select';
        break;
    }
  };
  render(session.state);
  const sub = session.onDidChangeState(render);
  item.show();
  return vscode.Disposable.from(item, sub);
}
