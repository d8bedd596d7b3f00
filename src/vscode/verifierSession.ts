import type * as vscode from 'vscode';
import { createModelBackend } from '../core/model/factory';
import type { ModelBackend } from '../core/model/types';
import { KeyedLoad } from './keyedLoad';
import { readSettings } from './settings';

/**
 * Owns the separate verifier model named by `stepwise.verifier.modelPath`: loaded on first use,
 * replaced when that setting or the ONNX variant or device changes, disposed with the extension.
 * Without the setting the generator verifies its own proofs, as the design allows.
 */
export class VerifierSession implements vscode.Disposable {
  private readonly model: KeyedLoad<ModelBackend>;

  constructor(log: vscode.LogOutputChannel) {
    this.model = new KeyedLoad((e) => log.error(`The verifier model failed to load: ${e.message}`));
  }

  /** The verifier: the configured model, or `generator` when none is configured. */
  backend(generator: ModelBackend): Promise<ModelBackend> {
    const s = readSettings();
    const modelDir = s.verifier.modelPath.trim();
    if (!modelDir) {
      this.model.unload();
      return Promise.resolve(generator);
    }
    const { variant, device } = s.model.onnx;
    return this.model.get(JSON.stringify([modelDir, variant, device]), () =>
      createModelBackend({ backend: 'onnx', modelDir, variant, device }),
    );
  }

  dispose(): void {
    this.model.unload();
  }
}
