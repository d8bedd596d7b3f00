import type * as vscode from 'vscode';
import { OnnxPrmScorer } from '../core/prove/prmScorer';
import { readSettings } from './settings';

/**
 * Owns the process reward model named by `stepwise.prm.modelPath`: loaded on first use in its own
 * model worker, replaced when the setting changes (so a freshly trained PRM is used without a
 * window reload), and disposed with the extension.
 */
export class PrmSession implements vscode.Disposable {
  private loaded: { path: string; scorer: Promise<OnnxPrmScorer> } | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** The configured PRM, or undefined when none is set (steps are then scored by the verifier). */
  scorer(): Promise<OnnxPrmScorer> | undefined {
    const s = readSettings();
    const path = s.prm.modelPath.trim();
    if (!path) {
      this.unload();
      return undefined;
    }
    if (this.loaded?.path !== path) {
      this.unload();
      const started = Date.now();
      const scorer = OnnxPrmScorer.load({ modelDir: path, device: s.model.onnx.device });
      scorer.then(
        (p) => this.log.info(`Process reward model ${p.model.name} ready in ${Date.now() - started} ms`),
        (e: Error) => this.log.error(`Process reward model failed to load: ${e.message}`),
      );
      const entry = { path, scorer };
      this.loaded = entry;
      // A failed load is not cached: the next use tries again (e.g. after the export finishes).
      scorer.catch(() => {
        if (this.loaded === entry) this.loaded = undefined;
      });
    }
    return this.loaded.scorer;
  }

  unload(): void {
    const old = this.loaded;
    this.loaded = undefined;
    void old?.scorer.then((p) => p.dispose()).catch(() => undefined);
  }

  dispose(): void {
    this.unload();
  }
}
