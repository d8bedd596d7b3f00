import type * as vscode from 'vscode';
import { OnnxPrmScorer } from '../core/model/onnx/prmScorer';
import { KeyedLoad } from './keyedLoad';
import { readSettings } from './settings';

/**
 * Owns the process reward model named by `stepwise.prm.modelPath`: loaded on first use in its own
 * model worker, replaced when the setting changes (so a freshly trained PRM is used without a
 * window reload), and disposed with the extension.
 */
export class PrmSession implements vscode.Disposable {
  private readonly model: KeyedLoad<OnnxPrmScorer>;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.model = new KeyedLoad((e) => log.error(`Process reward model failed to load: ${e.message}`));
  }

  /** The configured PRM, or undefined when none is set (steps are then scored by the verifier). */
  scorer(): Promise<OnnxPrmScorer> | undefined {
    const s = readSettings();
    const path = s.prm.modelPath.trim();
    if (!path) {
      this.model.unload();
      return undefined;
    }
    return this.model.get(JSON.stringify([path, s.model.onnx.device]), async () => {
      const started = Date.now();
      const scorer = await OnnxPrmScorer.load({ modelDir: path, device: s.model.onnx.device });
      this.log.info(`Process reward model ${scorer.model.name} ready in ${Date.now() - started} ms`);
      return scorer;
    });
  }

  unload(): void {
    this.model.unload();
  }

  dispose(): void {
    this.unload();
  }
}
