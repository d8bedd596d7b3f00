/**
 * Exact token counts from servers that expose a tokenizer next to their OpenAI API:
 * llama-cpp-python (`/extras/tokenize/count`) and llama.cpp's own server (`/tokenize`). Used only
 * when an estimate says a prompt is near the context window. Which route works is found once.
 */

type Route = {
  path: string;
  body: (text: string, model: string) => unknown;
  read: (json: unknown) => number | undefined;
};

const ROUTES: Route[] = [
  {
    path: '/extras/tokenize/count',
    body: (text, model) => ({ input: text, model }),
    read: (j) =>
      typeof (j as { count?: unknown })?.count === 'number' ? (j as { count: number }).count : undefined,
  },
  {
    path: '/tokenize',
    body: (text) => ({ content: text, add_special: false }),
    read: (j) => {
      const tokens = (j as { tokens?: unknown })?.tokens;
      return Array.isArray(tokens) ? tokens.length : undefined;
    },
  },
];

export class ServerTokenizer {
  /** undefined: not probed yet; null: the server has no tokenizer route. */
  private route: Route | null | undefined;

  constructor(
    private readonly root: string,
    private readonly model: string,
    private readonly headers: Record<string, string>,
    private readonly timeoutMs: number,
  ) {}

  /** The exact count, or undefined when the server cannot tell. Never throws. */
  async count(text: string, signal?: AbortSignal): Promise<number | undefined> {
    if (this.route === null) return undefined;
    const candidates = this.route ? [this.route] : ROUTES;
    for (const route of candidates) {
      const n = await this.ask(route, text, signal);
      if (n !== undefined) {
        this.route = route;
        return n;
      }
    }
    if (!signal?.aborted) this.route = null;
    return undefined;
  }

  private async ask(route: Route, text: string, signal?: AbortSignal): Promise<number | undefined> {
    try {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const res = await fetch(`${this.root}${route.path}`, {
        method: 'POST',
        headers: { ...this.headers, 'content-type': 'application/json' },
        body: JSON.stringify(route.body(text, this.model)),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (!res.ok) return undefined;
      return route.read(await res.json());
    } catch {
      return undefined;
    }
  }
}
