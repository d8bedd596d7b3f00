import * as vscode from 'vscode';
import { isAutomaticLabel } from '../../../core/labels/index';
import type { StepLabel } from './service';

const RATING_TEXT: Record<string, string> = { '1': '+1', '0': '0', '-1': '−1' };

type MarkKind = '1' | '0' | '-1' | 'auto1' | 'auto-1' | 'stale';

/** What an automatic label rests on, for its hover: the labeller and its evidence. */
function automaticEvidence(meta: Record<string, unknown> | undefined, source: string): string {
  const samples = typeof meta?.samples === 'number' ? meta.samples : undefined;
  const successes = typeof meta?.successes === 'number' ? meta.successes : undefined;
  const votes = Array.isArray(meta?.votes) ? meta.votes.length : undefined;
  if (source === 'auto-completion' && meta?.evidence === 'restored')
    return "restored from the loop's label journal, which did not record how many continuations reached the answer";
  if (source === 'auto-completion')
    return samples
      ? `${successes}/${samples} continuations from this step reached the reference answer`
      : "read from the solution's own final answer";
  return votes ? `${votes} of ${votes} verifier passes agreed` : "the verifier's passes agreed";
}

/**
 * Gutter marks and inline text for step labels; stale labels get a warning of their own, and
 * automatic labels (made by a labeller program, not a person) are drawn muted, without a gutter
 * mark, so that a person sees at a glance which labels are theirs.
 */
export class LabelDecorations implements vscode.Disposable {
  private readonly types: Record<MarkKind, vscode.TextEditorDecorationType>;

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
      auto1: vscode.window.createTextEditorDecorationType({
        after: {
          contentText: '◌ +1 auto',
          color: new vscode.ThemeColor('descriptionForeground'),
          margin: '0 0 0 1.5em',
        },
      }),
      'auto-1': vscode.window.createTextEditorDecorationType({
        after: {
          contentText: '◌ −1 auto',
          color: new vscode.ThemeColor('descriptionForeground'),
          margin: '0 0 0 1.5em',
        },
      }),
      stale: make(
        'stale',
        'editorWarning.foreground',
        '⚠ label is stale: the step changed since it was labelled',
      ),
    };
  }

  apply(editor: vscode.TextEditor, labels: StepLabel[]): void {
    const ranges: Record<MarkKind, vscode.DecorationOptions[]> = {
      '1': [],
      '0': [],
      '-1': [],
      auto1: [],
      'auto-1': [],
      stale: [],
    };
    for (const { step, label, stale } of labels) {
      if (!label || label.rating === null) continue;
      const start = editor.document.positionAt(step.start);
      const end = editor.document.positionAt(step.end);
      // The mark is an empty range at the end of the step's last line: a multi-line block shows it
      // once, and a long line that wraps shows it once (a whole-line range marks every wrapped row).
      const eol = editor.document.lineAt(end.line).range.end;
      const range = new vscode.Range(eol, eol);
      const lines = start.line !== end.line ? ` (lines ${start.line + 1}–${end.line + 1})` : '';
      const automatic = isAutomaticLabel(label);
      const hoverMessage = automatic
        ? `Step ${step.index + 1}: automatic label ${RATING_TEXT[String(label.rating)]} (${automaticEvidence(label.meta, label.source)})${lines}. Label it yourself to replace it.`
        : `Step ${step.index + 1} labelled ${RATING_TEXT[String(label.rating)]} on ${new Date(label.createdAt).toLocaleString()}${lines}`;
      const kind: MarkKind = stale
        ? 'stale'
        : automatic && label.rating !== 0
          ? (`auto${label.rating}` as MarkKind)
          : (String(label.rating) as MarkKind);
      ranges[kind].push({ range, hoverMessage });
    }
    for (const key of Object.keys(this.types) as MarkKind[])
      editor.setDecorations(this.types[key], ranges[key]);
  }

  clear(editor: vscode.TextEditor): void {
    for (const t of Object.values(this.types)) editor.setDecorations(t, []);
  }

  dispose(): void {
    for (const t of Object.values(this.types)) t.dispose();
  }
}
