import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateStepwise, waitFor } from './helpers';

suite('Welcome', () => {
  test('Show Welcome opens one webview tab titled "Welcome to Stepwise"', async () => {
    await activateStepwise();
    await vscode.commands.executeCommand('stepwise.welcome.show');
    // The tab list updates asynchronously after the command returns.
    const tab = await waitFor('the welcome tab', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === 'Welcome to Stepwise'),
    );
    assert.ok(tab.input instanceof vscode.TabInputWebview);
    // Running it again reveals the same panel instead of stacking a second one.
    await vscode.commands.executeCommand('stepwise.welcome.show');
    const welcomeTabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.label === 'Welcome to Stepwise');
    assert.equal(welcomeTabs.length, 1);
  });
});
