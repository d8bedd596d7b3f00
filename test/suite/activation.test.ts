import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import * as path from 'node:path';
import { activateStepwise, report } from './helpers';

suite('Activation', () => {
  test('activates quickly without loading any native module', async () => {
    const api = await activateStepwise();
    const extensionPath = vscode.extensions.getExtension('stepwise.stepwise')!.extensionPath;
    // The host itself may hold native modules of its own; only Stepwise's count here.
    const ownModules = path.join(extensionPath, 'node_modules');
    const nativeLoaded = Object.keys(require.cache).filter(
      (m) => /onnxruntime/.test(m) || (m.startsWith(ownModules) && m.endsWith('.node')),
    );
    report('activation', {
      activationMs: Number(api.activationMs.toFixed(2)),
      targetMs: 100,
      nativeModulesLoaded: nativeLoaded,
    });
    assert.deepEqual(nativeLoaded, [], 'no native module may load at activation');
    assert.ok(api.activationMs >= 0);
  });

  test('every Stepwise command is registered and titled under the Stepwise category', async () => {
    await activateStepwise();
    const registered = new Set(await vscode.commands.getCommands(true));
    const manifest = vscode.extensions.getExtension('stepwise.stepwise')!.packageJSON as {
      contributes: { commands: { command: string; category: string }[] };
    };
    const missing = manifest.contributes.commands
      .filter((c) => !registered.has(c.command))
      .map((c) => c.command);
    assert.deepEqual(missing, [], 'declared commands without a handler');
    assert.ok(manifest.contributes.commands.every((c) => c.category === 'Stepwise'));
  });

  test('settings are readable with their declared defaults', () => {
    const config = vscode.workspace.getConfiguration('stepwise');
    assert.equal(config.get('model.backend'), 'onnx');
    assert.equal(config.get('rewards.alpha'), 0.76);
    assert.equal(config.get('rewards.beta'), 0.24);
  });
});
