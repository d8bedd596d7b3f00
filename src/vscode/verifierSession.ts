import type * as vscode from 'vscode';
import { createModelBackend } from '../core/model/factory';
import type { ModelBackend } from '../core/model/types';
import { readSettings } from './settings';

/**
 * Owns the separate verifier model named by `stepwise.verifier.modelPath`: loaded on first use,
 * replaced when that setting or the ONNX variant or device changes, disposed with the extension.
 * Without the setting the generator verifies its own proofs, as the design allows.
 */
export class VerifierSession implements vscode.Disposable {
  private loaded: { key: string; backend: Promise<ModelBackend> } | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** The verifier: the configured model, or `generator` when none is configured. */
  backend(generator: ModelBackend): Promise<ModelBackend> {
    const s = readSettings();
    const modelDir = s.verifier.modelPath.trim();
    if (!modelDir) {
      this.unload();
      return Promise.resolve(generator);
    }
    const key = JSON.stringify([modelDir, s.model.onnx.variant, s.model.onnx.device]);
    if (this.loaded?.key !== key) {
      this.unload();
      const backend = createModelBackend({
        backend: 'onnx',
        modelDir,
        variant: s.model.onnx.variant,
        device: s.model.onnx.device,
      });
      const entry = { key, backend };
      this.loaded = entry;
      // A failed load is not cached: the next proof tries again.
      backend.catch((e: Error) => {
        this.log.error(`The verifier model failed to load: ${e.message}`);
        if (this.loaded === entry) this.loaded = undefined;
      });
    }
    return this.loaded.backend;
  }

  unload(): void {
    const old = this.loaded;
    this.loaded = undefined;
    void old?.backend.then((b) => b.dispose()).catch(() => undefined);
  }

  dispose(): void {
    this.unload();
  }
}
