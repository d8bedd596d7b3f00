import * as vscode from 'vscode';
import { createModelBackend, type ModelConfig } from '../core/model/factory';
import { defaultModelDir, DEFAULT_MODEL_NAME } from '../core/model/defaults';
import { installedNameIn } from '../core/model/ladder/installRecord';
import type { ModelBackend, ModelInfo } from '../core/model/types';
import { readSettings } from './settings';

export type ModelState =
  | { kind: 'idle' }
  | { kind: 'loading'; name: string }
  | { kind: 'ready'; info: ModelInfo }
  | { kind: 'busy'; info: ModelInfo; what: string }
  | { kind: 'error'; message: string; hint?: string };

export const API_KEY_SECRET = 'stepwise.model.openai.apiKey';

/**
 * Owns the loaded model. Nothing is loaded at activation: the first feature that needs the model
 * calls `acquire()`. Changing a model setting disposes the current backend; the next use loads the
 * new one, so switching models never needs a window reload.
 */
export class ModelSession implements vscode.Disposable {
  private backend: Promise<ModelBackend> | undefined;
  private current: ModelState = { kind: 'idle' };
  private busyCount = 0;
  private readonly changed = new vscode.EventEmitter<ModelState>();
  readonly onDidChangeState = this.changed.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get state(): ModelState {
    return this.current;
  }

  /** The configured backend, loading it on first use. */
  acquire(): Promise<ModelBackend> {
    if (!this.backend) {
      const attempt = this.load();
      this.backend = attempt;
      attempt.catch(() => {
        if (this.backend === attempt) this.backend = undefined;
      });
    }
    return this.backend;
  }

  /** Runs `work` with the model, showing it as busy in the status bar meanwhile. */
  async use<T>(what: string, work: (model: ModelBackend) => Promise<T>): Promise<T> {
    const model = await this.acquire();
    this.busyCount++;
    this.setState({ kind: 'busy', info: model.info, what });
    try {
      return await work(model);
    } finally {
      this.busyCount--;
      if (this.busyCount === 0 && this.current.kind === 'busy')
        this.setState({ kind: 'ready', info: model.info });
    }
  }

  async describeConfig(): Promise<ModelConfig> {
    const s = readSettings().model;
    if (s.backend === 'openai') {
      return {
        backend: 'openai',
        baseUrl: s.openai.baseUrl,
        model: s.openai.model,
        apiKey: (await this.secrets.get(API_KEY_SECRET)) ?? undefined,
        headers: s.openai.headers,
        contextWindow: s.contextWindow || undefined,
        tokenizerDir: s.openai.tokenizerPath || undefined,
        assertionGrammar: s.openai.assertionGrammar,
        maxOutputTokens: s.maxOutputTokens,
        timeoutMs: s.openai.timeoutMs,
        onWarning: (message) => this.log.warn(message),
      };
    }
    return {
      backend: 'onnx',
      modelDir: s.onnx.path || defaultModelDir(),
      variant: s.onnx.variant,
      device: s.onnx.device,
      threads: s.onnx.threads || undefined,
    };
  }

  /** Drops the loaded model; the next `acquire` loads the (possibly new) configured one. */
  async unload(): Promise<void> {
    const old = this.backend;
    this.backend = undefined;
    this.setState({ kind: 'idle' });
    if (old) await old.then((b) => b.dispose()).catch(() => undefined);
  }

  /** The name of the model the settings point at, before it is loaded (for the status bar). */
  async configuredName(): Promise<string> {
    return nameOf(await this.describeConfig());
  }

  private async load(): Promise<ModelBackend> {
    const config = await this.describeConfig();
    const name = nameOf(config);
    this.setState({ kind: 'loading', name });
    const started = Date.now();
    const { apiKey: _hidden, ...loggable } = config as ModelConfig & { apiKey?: string };
    this.log.info(`Loading model: ${JSON.stringify(loggable)}`);
    try {
      const backend = await createModelBackend(config);
      this.log.info(
        `Model ready in ${Date.now() - started} ms: ${backend.info.name} on ${backend.info.device}`,
      );
      this.setState({ kind: 'ready', info: backend.info });
      return backend;
    } catch (err) {
      const e = err as Error & { hint?: string };
      this.log.error(`Model failed to load: ${e.message}${e.hint ? ` (${e.hint})` : ''}`);
      this.setState({ kind: 'error', message: e.message, hint: e.hint });
      throw err;
    }
  }

  private setState(state: ModelState): void {
    this.current = state;
    this.changed.fire(state);
  }

  dispose(): void {
    void this.unload();
    this.changed.dispose();
  }
}

function nameOf(config: ModelConfig): string {
  return config.backend === 'onnx'
    ? installedNameIn(config.modelDir) || config.modelDir.split(/[\\/]/).pop() || DEFAULT_MODEL_NAME
    : config.model;
}
