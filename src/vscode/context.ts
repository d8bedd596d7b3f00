import * as vscode from 'vscode';
import { ModelSession } from './modelSession';
import { PrmSession } from './prmSession';
import { VerifierSession } from './verifierSession';
import { ENDPOINT_RELOAD_SETTINGS, MODEL_RELOAD_SETTINGS, readSettings } from './settings';
import { errorCode, showStepwiseError } from './errorActions';

/**
 * The one owner of lifetimes. Everything a feature starts is registered here and disposed with the
 * extension; the model lives in its own session, replaced when the model settings change.
 */
export class StepwiseContext implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly model: ModelSession;
  /** The process reward model, when `stepwise.prm.modelPath` names one. */
  readonly prm: PrmSession;
  /** A separate verifier model, when `stepwise.verifier.modelPath` names one. */
  readonly verifier: VerifierSession;
  private readonly disposables: vscode.Disposable[] = [];
  private lastTextEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = this.own(vscode.window.createOutputChannel('Stepwise', { log: true }));
    this.model = this.own(new ModelSession(extension.secrets, this.log));
    this.prm = this.own(new PrmSession(this.log));
    this.verifier = this.own(new VerifierSession(this.log));
    // While a panel has the focus VS Code reports no active text editor; the commands that act on
    // "the document" then mean the one the person last worked in.
    this.own(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor) this.lastTextEditor = editor;
      }),
    );
    this.own(
      vscode.workspace.onDidChangeConfiguration((e) => {
        const endpointChanged =
          ENDPOINT_RELOAD_SETTINGS.some((key) => e.affectsConfiguration(key)) &&
          readSettings().model.backend === 'openai';
        if (endpointChanged || MODEL_RELOAD_SETTINGS.some((key) => e.affectsConfiguration(key))) {
          this.log.info('Model settings changed: the next request loads the new model.');
          void this.model.unload();
        }
      }),
    );
  }

  /** Registers a disposable for the extension's lifetime and returns it. */
  own<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }

  /**
   * Registers a command whose failures reach the user: VS Code only logs a rejected command
   * promise, so without this wrapper an error would pass silently.
   */
  command(id: string, handler: (...args: unknown[]) => unknown): void {
    this.own(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await handler(...args);
        } catch (err) {
          this.reportError(`Command ${id} failed`, err);
          return undefined;
        }
      }),
    );
  }

  reportError(context: string, err: unknown): void {
    const e = err as Error & { hint?: string };
    if (e?.name === 'AbortError' || (e as { code?: string })?.code === 'aborted') {
      this.log.info(`${context}: cancelled`);
      return;
    }
    this.log.error(`${context}: ${e?.stack ?? String(err)}`);
    // Also to the extension host's console, which test runs and the developer tools show.
    console.error(`[stepwise] ${context}: ${e?.message ?? String(err)}`);
    const text = `Stepwise: ${e?.message ?? String(err)}${e?.hint ? ` — ${e.hint}` : ''}`;
    showStepwiseError(text, errorCode(err), () => this.log.show());
  }

  /**
   * The text editor the person is working in: the active one, or, while a panel (a webview) has
   * the focus, the one they last worked in, as long as its document is still open.
   */
  textEditor(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    if (active) return active;
    const last = this.lastTextEditor;
    if (!last || last.document.isClosed) return undefined;
    // The editor object of a document moved or reopened is a new one: prefer the visible one.
    return vscode.window.visibleTextEditors.find((e) => e.document === last.document) ?? last;
  }

  /** The workspace folder Stepwise stores runs, labels and practice sets in (its `.stepwise/`). */
  workspaceRoot(): vscode.Uri | undefined {
    const active = this.textEditor()?.document.uri;
    const folder =
      (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
    return folder?.uri;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (err) {
        this.log?.error(`Dispose failed: ${String(err)}`);
      }
    }
  }
}
