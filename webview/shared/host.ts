import { RpcEndpoint, type Handlers, type ProtocolSide } from '../../src/shared/rpc';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscodeApi = acquireVsCodeApi();

/** The webview end of a panel's protocol. Call once per page; it says `ready` after wiring. */
export function connect<View extends ProtocolSide, Host extends ProtocolSide>(
  handlers: Partial<Handlers<View>> = {},
): RpcEndpoint<View, Host> {
  const rpc = new RpcEndpoint<View, Host>((m) => vscodeApi.postMessage(m), handlers);
  window.addEventListener('message', (e: MessageEvent) => void rpc.receive(e.data));
  queueMicrotask(() => rpc.sendReady());
  return rpc;
}

/** Panel state that survives the panel being hidden or the window reloading (via the serializer). */
export function loadState<T>(): T | undefined {
  return vscodeApi.getState() as T | undefined;
}

export function saveState<T>(state: T): void {
  vscodeApi.setState(state);
}

/** Creates an element with text content (never innerHTML with untrusted text). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}

/** Adds a stylesheet under the page's CSP nonce (inline styles without it are refused). */
export function injectStyles(css: string): void {
  const style = document.createElement('style');
  style.setAttribute('nonce', document.body.dataset.nonce ?? '');
  style.textContent = css;
  document.head.append(style);
}
