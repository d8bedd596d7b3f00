/**
 * One typed message protocol for every boundary between the extension host and a webview.
 * Both ends compile this file. The webview says `ready` first; requests carry an id; replies echo
 * it with a result or an error; every request has a timeout so no caller waits forever.
 */

/** A protocol names the requests each side answers and the events each side emits. */
export interface ProtocolSide {
  requests: Record<string, { params: unknown; result: unknown }>;
  events: Record<string, unknown>;
}

export type Envelope =
  | { kind: 'ready' }
  | { kind: 'request'; id: number; method: string; params: unknown }
  | { kind: 'response'; id: number; ok: true; result: unknown }
  | { kind: 'response'; id: number; ok: false; error: { message: string; code?: string } }
  | { kind: 'event'; name: string; payload: unknown };

export class RpcError extends Error {
  constructor(
    message: string,
    readonly code: 'timeout' | 'remote' | 'disposed' | 'unknown-method',
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export type Handlers<S extends ProtocolSide> = {
  [M in keyof S['requests']]: (
    params: S['requests'][M]['params'],
  ) => Promise<S['requests'][M]['result']> | S['requests'][M]['result'];
};

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * One end of the channel. `Local` is what this end answers/emits, `Remote` what the other end does.
 * `post` sends an envelope; feed incoming envelopes to `receive`.
 */
export class RpcEndpoint<Local extends ProtocolSide, Remote extends ProtocolSide> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();
  private readyListeners: (() => void)[] = [];
  private disposed = false;

  constructor(
    private readonly post: (envelope: Envelope) => void,
    private handlers: Partial<Handlers<Local>> = {},
    private readonly defaultTimeoutMs = 10_000,
  ) {}

  /** Adds request handlers (for ends whose handlers need the endpoint itself). */
  serve(handlers: Partial<Handlers<Local>>): void {
    this.handlers = { ...this.handlers, ...handlers };
  }

  request<M extends keyof Remote['requests'] & string>(
    method: M,
    params: Remote['requests'][M]['params'],
    timeoutMs = this.defaultTimeoutMs,
  ): Promise<Remote['requests'][M]['result']> {
    if (this.disposed) return Promise.reject(new RpcError('The panel was closed.', 'disposed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcError(`No answer to "${method}" within ${timeoutMs} ms.`, 'timeout'));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.post({ kind: 'request', id, method, params });
    });
  }

  emit<E extends keyof Local['events'] & string>(name: E, payload: Local['events'][E]): void {
    if (!this.disposed) this.post({ kind: 'event', name, payload });
  }

  on<E extends keyof Remote['events'] & string>(
    name: E,
    listener: (payload: Remote['events'][E]) => void,
  ): () => void {
    const set = this.listeners.get(name) ?? new Set();
    set.add(listener as (payload: unknown) => void);
    this.listeners.set(name, set);
    return () => set.delete(listener as (payload: unknown) => void);
  }

  onReady(listener: () => void): void {
    this.readyListeners.push(listener);
  }

  sendReady(): void {
    this.post({ kind: 'ready' });
  }

  /** Handles one incoming message; anything that is not an envelope is ignored. */
  async receive(message: unknown): Promise<void> {
    if (this.disposed || !isEnvelope(message)) return;
    switch (message.kind) {
      case 'ready':
        for (const l of this.readyListeners) l();
        return;
      case 'event':
        for (const l of this.listeners.get(message.name) ?? []) l(message.payload);
        return;
      case 'response': {
        const p = this.pending.get(message.id);
        if (!p) return;
        this.pending.delete(message.id);
        clearTimeout(p.timer);
        if (message.ok) p.resolve(message.result);
        else p.reject(new RpcError(message.error.message, 'remote'));
        return;
      }
      case 'request': {
        const handler = (this.handlers as Record<string, ((p: unknown) => unknown) | undefined>)[
          message.method
        ];
        if (!handler) {
          this.post({
            kind: 'response',
            id: message.id,
            ok: false,
            error: { message: `Unknown request "${message.method}".`, code: 'unknown-method' },
          });
          return;
        }
        try {
          const result = await handler(message.params);
          this.post({ kind: 'response', id: message.id, ok: true, result });
        } catch (err) {
          this.post({
            kind: 'response',
            id: message.id,
            ok: false,
            error: { message: (err as Error).message ?? String(err) },
          });
        }
        return;
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new RpcError('The panel was closed.', 'disposed'));
    }
    this.pending.clear();
    this.listeners.clear();
  }
}

function isEnvelope(m: unknown): m is Envelope {
  if (typeof m !== 'object' || m === null) return false;
  const kind = (m as { kind?: unknown }).kind;
  return kind === 'ready' || kind === 'request' || kind === 'response' || kind === 'event';
}
