import * as vscode from 'vscode';
import type { ModelSession, ModelState } from './modelSession';

/** The status-bar item that shows the model: backend, name, device and load state. */
export function createModelStatusItem(session: ModelSession): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('stepwise.model', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Stepwise Model';
  const render = (state: ModelState) => {
    item.backgroundColor = undefined;
    switch (state.kind) {
      case 'idle':
        item.text = '$(circle-outline) Stepwise';
        item.tooltip = 'Stepwise: the model loads on first use. Click to select a model.';
        item.command = 'stepwise.selectModel';
        break;
      case 'loading':
        item.text = `$(loading~spin) Stepwise: loading ${state.name}`;
        item.tooltip = `Loading ${state.name}…`;
        item.command = 'stepwise.showLog';
        break;
      case 'ready':
        item.text = `$(check) Stepwise: ${state.info.name} · ${state.info.device.toUpperCase()}`;
        item.tooltip = `${state.info.backend} backend, ${state.info.name} on ${state.info.device}, context ${state.info.contextWindow} tokens. Click to select a model.`;
        item.command = 'stepwise.selectModel';
        break;
      case 'busy':
        item.text = `$(sync~spin) Stepwise: ${state.what}`;
        item.tooltip = `${state.info.name} on ${state.info.device}: ${state.what}`;
        item.command = 'stepwise.showLog';
        break;
      case 'error':
        item.text = '$(error) Stepwise: model error';
        item.tooltip = `${state.message}${state.hint ? `\n${state.hint}` : ''}\nClick to select another model.`;
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        item.command = 'stepwise.selectModel';
        break;
    }
  };
  render(session.state);
  const sub = session.onDidChangeState(render);
  item.show();
  return vscode.Disposable.from(item, sub);
}
