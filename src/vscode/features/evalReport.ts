import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { StepwiseContext } from '../context';
import { EVAL_RESULT_SCHEMA, type EvalResult } from '../../core/eval/evaluation';
import { renderReport } from '../../core/eval/report/html';
import { resourcePath } from '../../core/resources';
import { largestFirst } from '../../core/eval/modelFigures';

const VIEW_TYPE = 'stepwise.evalReport';

/** The results documents under `<workspace>/.stepwise/eval/`, newest first. */
export function findEvalResults(root: string): { file: string; result: EvalResult }[] {
  const dir = path.join(root, '.stepwise', 'eval');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(dir, f))
    .flatMap((file) => {
      const loaded = loadEvalResult(file);
      return 'result' in loaded ? [{ file, result: loaded.result }] : [];
    })
    .sort((a, b) => b.result.updatedAt.localeCompare(a.result.updatedAt));
}

/**
 * The evaluations measured for this release, shipped in the package (`bench/results/eval-*.json`),
 * largest first (a quick 16-item run is not the first figure a person should meet): what a person
 * sees before running an evaluation of their own.
 */
export function shippedEvalResults(): { file: string; result: EvalResult }[] {
  const dir = resourcePath('bench', 'results');
  if (!fs.existsSync(dir)) return [];
  const found = fs
    .readdirSync(dir)
    .filter((f) => /^eval-.*\.json$/.test(f))
    .flatMap((f) => {
      const file = path.join(dir, f);
      const loaded = loadEvalResult(file);
      return 'result' in loaded ? [{ file, result: loaded.result }] : [];
    });
  const order = largestFirst(found.map((f) => f.result));
  return found.sort((a, b) => order.indexOf(a.result) - order.indexOf(b.result));
}

/** A results document, from its .json or the .html report beside it; a clear error otherwise. */
export function loadEvalResult(file: string): { result: EvalResult } | { error: string } {
  const json = file.endsWith('.html') ? file.replace(/\.html$/, '.json') : file;
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(json, 'utf8'));
  } catch (err) {
    return { error: `Cannot read ${json}: ${(err as Error).message}` };
  }
  const v = value as Partial<EvalResult>;
  if (v?.schema !== EVAL_RESULT_SCHEMA || !v.kind || !v.metrics)
    return { error: `${json} is not a Stepwise evaluation result (made by "stepwise eval").` };
  return { result: v as EvalResult };
}

/**
 * Evaluation reports in webviews, one per results file: the same page the CLI writes, rendered
 * with this webview's nonce under the project's strict policy (no scripts at all, styles only
 * through the nonce'd style element), refreshed when its evaluation is run again.
 */
export class EvalReportPanels {
  private readonly open = new Map<string, vscode.WebviewPanel>();

  constructor(private readonly ctx: StepwiseContext) {
    ctx.own({ dispose: () => [...this.open.values()].forEach((p) => p.dispose()) });
  }

  show(file: string): void {
    const loaded = loadEvalResult(file);
    if ('error' in loaded) throw new Error(loaded.error);
    const key = path.resolve(file).replace(/\.html$/, '.json');
    let panel = this.open.get(key);
    if (panel) panel.reveal();
    else {
      panel = vscode.window.createWebviewPanel(VIEW_TYPE, title(loaded.result), vscode.ViewColumn.Active, {
        enableScripts: false,
        localResourceRoots: [],
      });
      panel.iconPath = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'media', 'stepwise.svg');
      this.open.set(key, panel);
      panel.onDidDispose(() => this.open.delete(key));
    }
    panel.title = title(loaded.result);
    panel.webview.html = renderReport(loaded.result, {
      nonce: randomBytes(16).toString('base64'),
      styleSource: panel.webview.cspSource,
    });
  }

  /** Re-renders the panel of `file` if one is open (after its evaluation ran again). */
  refresh(file: string): void {
    if (this.open.has(path.resolve(file))) this.show(file);
  }
}

function title(r: EvalResult): string {
  return `Evaluation: ${r.kind} — ${path.basename(r.dataset.path)}`;
}

/** "Stepwise: Show Evaluation Report": pick one of the workspace's reports, or any results file. */
export function registerShowReport(ctx: StepwiseContext, panels: EvalReportPanels): void {
  ctx.command('stepwise.eval.showReport', async (arg?: unknown) => {
    const given = typeof arg === 'string' ? arg : (arg as { file?: string } | undefined)?.file;
    if (given) {
      panels.show(given);
      return given;
    }
    const root = ctx.workspaceRoot()?.fsPath;
    const found = root ? findEvalResults(root) : [];
    const shipped = shippedEvalResults();
    const item = (file: string, r: EvalResult, where: string) => ({
      label: `${r.kind}: ${path.basename(r.dataset.path)}`,
      description: `${r.model.name} · ${r.items.finished}/${r.items.selected} items${r.complete ? '' : ' (incomplete)'}`,
      detail: `${where} · updated ${r.updatedAt.replace('T', ' ').slice(0, 16)} UTC`,
      file,
      run: false,
    });
    const separator = (label: string) => ({
      label,
      kind: vscode.QuickPickItemKind.Separator,
      file: '',
      run: false,
    });
    const picked = await vscode.window.showQuickPick(
      [
        ...(found.length ? [separator('Your evaluations (.stepwise/eval)')] : []),
        ...found.map(({ file, result: r }) => item(file, r, vscode.workspace.asRelativePath(file))),
        ...(shipped.length ? [separator('Measured for this release (shipped with Stepwise)')] : []),
        ...shipped.map(({ file, result: r }) => item(file, r, 'shipped with Stepwise')),
        separator(''),
        {
          label: '$(play) Run evaluation…',
          description: 'measure the model on a dataset yourself',
          file: '',
          run: true,
        },
        { label: '$(folder-opened) Choose a results file…', file: '', run: false },
      ],
      {
        title: 'Stepwise: Show Evaluation Report',
        placeHolder: found.length
          ? 'An evaluation under .stepwise/eval/, or one measured for this release'
          : 'No evaluation of yours yet: open one measured for this release, or run one',
      },
    );
    if (!picked) return undefined;
    if (picked.run) return vscode.commands.executeCommand('stepwise.eval.run');
    let file = picked.file;
    if (!file) {
      const chosen = await vscode.window.showOpenDialog({
        title: 'A results file written by "stepwise eval"',
        filters: { 'Evaluation results': ['json', 'html'] },
      });
      file = chosen?.[0]?.fsPath ?? '';
      if (!file) return undefined;
    }
    panels.show(file);
    return file;
  });
}
