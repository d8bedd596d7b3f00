import * as vscode from 'vscode';
import * as path from 'node:path';
import {
  LabelStore,
  currentLabels,
  labelStates,
  type LabelRecord,
  type Rating,
} from '../../../core/labels/index';
import { parseProofDocument, type ProofDocument } from '../../../core/steps/document';
import type { Step } from '../../../core/steps/split';

export const PROOF_LANGUAGES = new Set(['markdown', 'latex', 'stepwise-proof']);

export interface StepLabel {
  step: Step;
  label: LabelRecord | undefined;
  stale: boolean;
}

/**
 * Labels of the open workspace: one store per workspace folder (`.stepwise/labels`), read once and
 * kept in memory; every change is appended durably first, then announced.
 */
export class LabelService implements vscode.Disposable {
  private readonly stores = new Map<string, { store: LabelStore; records: Promise<LabelRecord[]> }>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  /** Labels made in this session, newest last, for undo. */
  private readonly history: { root: string; record: LabelRecord; previous: LabelRecord | undefined }[] = [];

  constructor(private readonly log: vscode.LogOutputChannel) {}

  rootOf(uri: vscode.Uri): string | undefined {
    return (
      vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ??
      vscode.workspace.workspaceFolders?.[0]?.uri.fsPath
    );
  }

  private entry(root: string) {
    let e = this.stores.get(root);
    if (!e) {
      const store = new LabelStore(path.join(root, '.stepwise', 'labels'));
      const records = store.read().then(({ records, corrupt, repairs }) => {
        for (const r of repairs) {
          this.log.warn(r);
          void vscode.window.showWarningMessage(`Stepwise: ${r}`);
        }
        if (corrupt.length) {
          this.log.warn(
            `${store.file}: ${corrupt.length} corrupt line(s) skipped (kept in the file): ${corrupt.map((c) => `line ${c.line}: ${c.reason}`).join('; ')}`,
          );
          void vscode.window.showWarningMessage(
            `Stepwise skipped ${corrupt.length} corrupt line(s) in ${vscode.workspace.asRelativePath(store.file)}; they are left untouched. See the log.`,
          );
        }
        return records;
      });
      e = { store, records };
      this.stores.set(root, e);
    }
    return e;
  }

  async records(root: string): Promise<LabelRecord[]> {
    return this.entry(root).records;
  }

  solutionIdOf(document: vscode.TextDocument): string {
    return `doc:${vscode.workspace.asRelativePath(document.uri, false)}`;
  }

  parse(document: vscode.TextDocument): ProofDocument | undefined {
    if (!PROOF_LANGUAGES.has(document.languageId)) return undefined;
    const doc = parseProofDocument(document.getText());
    return doc.steps.length ? doc : undefined;
  }

  /** Every step of a solution with the label in force and whether it is stale. */
  async stepLabels(root: string, solutionId: string, steps: Step[]): Promise<StepLabel[]> {
    const current = currentLabels(await this.records(root));
    const mine = [...current.values()].filter((r) => r.solutionId === solutionId);
    const states = new Map(labelStates(mine, steps).map((s) => [s.label.stepIndex, s.state]));
    return steps.map((step) => {
      const label = current.get(`${solutionId}#${step.index}`);
      return { step, label, stale: label ? states.get(step.index) === 'stale' : false };
    });
  }

  /** Appends a label durably (fsync) and only then updates what the editor shows. */
  async label(
    root: string,
    base: { problemId: string; problemText: string; solutionId: string },
    step: Step,
    rating: Rating | null,
    source: LabelRecord['source'],
    supersedes?: string,
  ): Promise<LabelRecord> {
    const e = this.entry(root);
    const records = await e.records;
    const previous = currentLabels(records).get(`${base.solutionId}#${step.index}`);
    const record = await e.store.append({
      problemId: base.problemId,
      problemText: base.problemText || undefined,
      solutionId: base.solutionId,
      stepIndex: step.index,
      stepHash: step.hash,
      stepText: step.text,
      rating,
      source,
      supersedes: supersedes ?? previous?.id,
    });
    records.push(record);
    this.history.push({ root, record, previous });
    this.changed.fire();
    return record;
  }

  /** Undoes this session's last label by appending the state before it. */
  async undo(): Promise<LabelRecord | undefined> {
    const last = this.history.pop();
    if (!last) return undefined;
    const e = this.entry(last.root);
    const r = last.record;
    const restored = await e.store.append({
      problemId: r.problemId,
      solutionId: r.solutionId,
      stepIndex: r.stepIndex,
      stepHash: last.previous?.stepHash ?? r.stepHash,
      stepText: last.previous?.stepText ?? r.stepText,
      rating: last.previous?.rating ?? null,
      source: r.source,
      supersedes: r.id,
    });
    (await e.records).push(restored);
    this.changed.fire();
    return restored;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
