import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { RpcEndpoint, type Handlers, type ProtocolSide } from '../../shared/rpc';
import { htmlPage } from '../../core/text/htmlPage';
import type { StepwiseContext } from '../context';

export interface PanelSpec<Host extends ProtocolSide, View extends ProtocolSide> {
  /** `stepwise.<name>`; the webview bundle is `dist/webview/<name>.js`. */
  viewType: string;
  bundle: string;
  title: string;
  /** Requests the host answers for this panel's webview. */
  handlers: (panel: PanelHandle<Host, View>) => Partial<Handlers<Host>>;
  /** Extra stylesheets from `dist/webview/` (e.g. KaTeX). */
  styles?: string[];
}

export interface PanelHandle<Host extends ProtocolSide, View extends ProtocolSide> {
  readonly panel: vscode.WebviewPanel;
  readonly rpc: RpcEndpoint<Host, View>;
  /** Resolves once the webview has said `ready`; messages before that would be lost. */
  readonly ready: Promise<void>;
  readonly onDidDispose: vscode.Event<void>;
}

/**
 * Opens (or revives) a webview panel with a strict Content Security Policy: nothing but the
 * bundle's own nonce-tagged script and stylesheets, resources only from `dist/webview`.
 */
export function openPanel<Host extends ProtocolSide, View extends ProtocolSide>(
  ctx: StepwiseContext,
  spec: PanelSpec<Host, View>,
  existing?: vscode.WebviewPanel,
  column: vscode.ViewColumn = vscode.ViewColumn.Active,
): PanelHandle<Host, View> {
  const root = vscode.Uri.joinPath(ctx.extension.extensionUri, 'dist', 'webview');
  const panel =
    existing ??
    vscode.window.createWebviewPanel(spec.viewType, spec.title, column, {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [root],
    });
  panel.webview.options = { enableScripts: true, localResourceRoots: [root] };
  panel.iconPath = vscode.Uri.joinPath(ctx.extension.extensionUri, 'media', 'stepwise.svg');

  const disposables: vscode.Disposable[] = [];
  const disposed = new vscode.EventEmitter<void>();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const handle = { panel, ready, onDidDispose: disposed.event } as PanelHandle<Host, View> & {
    rpc: RpcEndpoint<Host, View>;
  };
  handle.rpc = new RpcEndpoint<Host, View>((m) => void panel.webview.postMessage(m));
  // Handlers need the handle (to emit events back), so they are bound after it exists.
  handle.rpc.serve(spec.handlers(handle));
  handle.rpc.onReady(markReady);
  disposables.push(panel.webview.onDidReceiveMessage((m) => void handle.rpc.receive(m)));
  panel.webview.html = renderHtml(panel.webview, root, spec);
  panel.onDidDispose(() => {
    handle.rpc.dispose();
    disposed.fire();
    disposed.dispose();
    for (const d of disposables) d.dispose();
  });
  return handle;
}

function renderHtml(
  webview: vscode.Webview,
  root: vscode.Uri,
  spec: { bundle: string; title: string; styles?: string[] },
): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, `${spec.bundle}.js`));
  const styles = (spec.styles ?? []).map(
    (s) =>
      `<link rel="stylesheet" nonce="${nonce}" href="${webview.asWebviewUri(vscode.Uri.joinPath(root, s))}">`,
  );
  return htmlPage({
    csp: [
      "default-src 'none'",
      `style-src ${webview.cspSource} 'nonce-${nonce}'`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `script-src 'nonce-${nonce}'`,
    ],
    title: spec.title,
    head: styles.join('\n'),
    bodyAttributes: ` data-nonce="${nonce}"`,
    body: `<main id="app" aria-live="polite"><p class="loading">Loading…</p></main>
<script nonce="${nonce}" src="${script}"></script>`,
  });
}

export interface SingletonPanelSpec<Host extends ProtocolSide, View extends ProtocolSide> extends PanelSpec<
  Host,
  View
> {
  /** Where a new panel opens and an open one is revealed (default: the active column). */
  column?: vscode.ViewColumn;
  /** Reveal without taking focus from the editor (for panels that open beside the text). */
  preserveFocus?: boolean;
  /** Called for every panel opened or revived; what it returns is disposed when the panel closes. */
  onOpen?: (handle: PanelHandle<Host, View>) => vscode.Disposable | void;
}

export interface SingletonPanel<Host extends ProtocolSide, View extends ProtocolSide> {
  /** Reveals the open panel, or opens a new one. */
  show(): PanelHandle<Host, View>;
  /** The open panel, if there is one. */
  readonly current: PanelHandle<Host, View> | undefined;
}

/**
 * One panel per view type, as users expect of a tool window: the command reveals the panel that
 * is already open instead of stacking copies, and a panel VS Code restores after a reload is
 * revived through a serializer (registered here, owned by the context).
 */
export function singletonPanel<Host extends ProtocolSide, View extends ProtocolSide>(
  ctx: StepwiseContext,
  spec: SingletonPanelSpec<Host, View>,
): SingletonPanel<Host, View> {
  let current: PanelHandle<Host, View> | undefined;
  const open = (existing?: vscode.WebviewPanel) => {
    const handle = openPanel(ctx, spec, existing, spec.column);
    current = handle;
    const owned = spec.onOpen?.(handle);
    handle.onDidDispose(() => {
      owned?.dispose();
      if (current === handle) current = undefined;
    });
    return handle;
  };
  ctx.own(
    vscode.window.registerWebviewPanelSerializer(spec.viewType, {
      deserializeWebviewPanel: async (panel) => void open(panel),
    }),
  );
  return {
    show() {
      if (!current) return open();
      // An open panel stays in its column: revealing it "beside" whatever is active (the panel
      // itself, after a click in it) would open a new column each time and squeeze the editors.
      current.panel.reveal(current.panel.viewColumn ?? spec.column, spec.preserveFocus);
      return current;
    },
    get current() {
      return current;
    },
  };
}
