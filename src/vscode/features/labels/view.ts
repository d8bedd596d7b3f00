import * as vscode from 'vscode';
import { parseProofDocument } from '../../../core/steps/document';
import type { LabelService } from './service';

type Node =
  | { kind: 'doc'; uri: vscode.Uri; labelled: number; total: number; stale: number }
  | {
      kind: 'step';
      uri: vscode.Uri;
      index: number;
      text: string;
      rating: number | null;
      stale: boolean;
      line: number;
    };

/** The "Step Labels" view (shown as "Stepwise: Step Labels"): proof documents with their labelling progress, and their steps. */
export class LabelsTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly labels: LabelService) {
    this.subscription = labels.onDidChange(() => this.changed.fire());
  }

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      const files = await vscode.workspace.findFiles('**/*.{md,tex}', '**/node_modules/**', 500);
      const docs: Node[] = [];
      for (const uri of files.sort((a, b) => a.fsPath.localeCompare(b.fsPath))) {
        const root = this.labels.rootOf(uri);
        if (!root) continue;
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
        const doc = parseProofDocument(text);
        if (!doc.steps.length) continue;
        const solutionId = `doc:${vscode.workspace.asRelativePath(uri, false)}`;
        const states = await this.labels.stepLabels(root, solutionId, doc.steps);
        docs.push({
          kind: 'doc',
          uri,
          total: doc.steps.length,
          labelled: states.filter((s) => s.label && !s.stale).length,
          stale: states.filter((s) => s.stale).length,
        });
      }
      return docs;
    }
    if (node.kind === 'step') return [];
    const document = await vscode.workspace.openTextDocument(node.uri);
    const doc = parseProofDocument(document.getText());
    const root = this.labels.rootOf(node.uri)!;
    const states = await this.labels.stepLabels(root, this.labels.solutionIdOf(document), doc.steps);
    return states.map((s) => ({
      kind: 'step',
      uri: node.uri,
      index: s.step.index,
      text: s.step.text,
      rating: s.label?.rating ?? null,
      stale: s.stale,
      line: document.positionAt(s.step.start).line,
    }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'doc') {
      const item = new vscode.TreeItem(
        vscode.workspace.asRelativePath(node.uri),
        vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.description = `${node.labelled}/${node.total} labelled${node.stale ? `, ${node.stale} stale` : ''}`;
      item.tooltip = `${node.total - node.labelled} step(s) left to label`;
      item.iconPath = new vscode.ThemeIcon(
        node.labelled === node.total ? 'pass-filled' : 'circle-large-outline',
      );
      item.resourceUri = node.uri;
      item.contextValue = 'stepwise.proofDocument';
      return item;
    }
    const item = new vscode.TreeItem(
      `${node.index + 1}. ${node.text.split('\n')[0].slice(0, 80)}`,
      vscode.TreeItemCollapsibleState.None,
    );
    item.description = node.stale
      ? 'stale'
      : node.rating === null
        ? 'unlabelled'
        : node.rating === 1
          ? '+1'
          : node.rating === 0
            ? '0'
            : '−1';
    item.iconPath = node.stale
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'))
      : node.rating === 1
        ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
        : node.rating === -1
          ? new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'))
          : node.rating === 0
            ? new vscode.ThemeIcon('circle-outline')
            : new vscode.ThemeIcon('circle-small');
    item.command = {
      command: 'vscode.open',
      title: 'Go to step',
      arguments: [node.uri, { selection: new vscode.Range(node.line, 0, node.line, 0) }],
    };
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
