import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateStepwise, report } from './helpers';

suite('Model runtime in the extension host (default model)', () => {
  test('generates with the default model off the main thread and streams tokens into the playground webview', async () => {
    const api = await activateStepwise();
    await vscode.commands.executeCommand('stepwise.playground.open');
    // Measure the extension host's event loop while the worker generates.
    let worstGapMs = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      const now = Date.now();
      worstGapMs = Math.max(worstGapMs, now - last - 10);
      last = now;
    }, 10);
    const tokens: string[] = [];
    let result;
    try {
      result = await api.context.model.use('test', (model) =>
        model.generate([{ role: 'user', content: 'Say hello.' }], {
          maxTokens: 24,
          temperature: 0,
          onToken: (t) => tokens.push(t.text),
        }),
      );
    } finally {
      clearInterval(timer);
    }
    assert.ok(tokens.length > 0, 'tokens streamed');
    assert.equal(tokens.join(''), result.completions[0].text);
    assert.equal(api.context.model.state.kind, 'ready');
    report('extension-host-generation', {
      tokens: tokens.length,
      worstEventLoopGapMs: worstGapMs,
      timeToFirstTokenMs: result.timeToFirstTokenMs,
    });
  });
});
