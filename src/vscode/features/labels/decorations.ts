import * as vscode from 'vscode';
import type { StepLabel } from './service';

const RATING_TEXT: Record<string, string> = { '1': '+1', '0': '0', '-1': '−1' };

/** Gutter marks and inline text for step labels; stale labels get a warning of their own. */
export class LabelDecorations implements vscode.Disposable {
  private readonly types: Record<'1' | '0' | '-1' | 'stale', vscode.TextEditorDecorationType>;

  constructor(extensionUri: vscode.Uri) {
    const icon = (name: string) => vscode.Uri.joinPath(extensionUri, 'media', `label-${name}.svg`);
    const make = (name: string, colour: string, text: string) =>
      vscode.window.createTextEditorDecorationType({
        gutterIconPath: icon(name),
        gutterIconSize: 'contain',
        overviewRulerColor: new vscode.ThemeColor(colour),
        overviewRulerLane: vscode.OverviewRulerLane.Left,
        after: {
          contentText: text,
          color: new vscode.ThemeColor(colour),
          margin: '0 0 0 1.5em',
          fontStyle: 'italic',
        },
      });
    this.types = {
      '1': make('positive', 'testing.iconPassed', '✓ +1'),
      '0': make('neutral', 'descriptionForeground', '○ 0'),
      '-1': make('negative', 'testing.iconFailed', '✗ −1'),
      stale: make(
        'stale',
        'editorWarning.foreground',
        '⚠ label is stale: the step changed since it was labelled',
      ),
    };
  }

  apply(editor: vscode.TextEditor, labels: StepLabel[]): void {
    const ranges: Record<keyof typeof this.types, vscode.DecorationOptions[]> = {
      '1': [],
      '0': [],
      '-1': [],
      stale: [],
    };
    for (const { step, label, stale } of labels) {
      if (!label || label.rating === null) continue;
      const start = editor.document.positionAt(step.start);
      const end = editor.document.positionAt(step.end);
      // The mark sits on the step's last line, so a multi-line block shows it once.
      const range = new vscode.Range(end.line, 0, end.line, editor.document.lineAt(end.line).text.length);
      const option = {
        range,
        hoverMessage: `Step ${step.index + 1} labelled ${RATING_TEXT[String(label.rating)]} on ${new Date(label.createdAt).toLocaleString()}${start.line !== end.line ? ` (lines ${start.line + 1}–${end.line + 1})` : ''}`,
      };
      ranges[stale ? 'stale' : (String(label.rating) as '1' | '0' | '-1')].push(option);
    }
    for (const key of Object.keys(this.types) as (keyof typeof this.types)[])
      editor.setDecorations(this.types[key], ranges[key]);
  }

  clear(editor: vscode.TextEditor): void {
    for (const t of Object.values(this.types)) editor.setDecorations(t, []);
  }

  dispose(): void {
    for (const t of Object.values(this.types)) t.dispose();
  }
}
