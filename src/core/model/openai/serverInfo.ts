/**
 * What a server says about itself beyond the OpenAI API: its context window (llama.cpp `/props`
 * `n_ctx`, vLLM `/v1/models` `max_model_len`) and its chat template (llama.cpp `/props`). Read
 * once per backend; a server that says nothing leaves both undefined. Never throws.
 */

export interface ServerInfo {
  /** Tokens the server's model reads at once, where the server says. */
  contextWindow?: number;
  /** Where the context window came from, for messages. */
  contextSource?: string;
  /** The chat template the server applies, with the special tokens it references. */
  chatTemplate?: { template: string; specialTokens: Record<string, string> };
  /** Whether the server answered llama.cpp's `/props` (llama-cpp-python's server does not). */
  answersProps: boolean;
}

type Json = Record<string, unknown>;

async function getJson(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Json | undefined> {
  try {
    const res = await fetch(url, { headers, signal });
    if (!res.ok) return undefined;
    const body: unknown = await res.json();
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : undefined;
  } catch {
    return undefined;
  }
}

const positive = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** The context window in a llama.cpp `/props` answer (older servers nest it in the default settings). */
export function contextFromProps(props: Json): number | undefined {
  const settings = props.default_generation_settings as Json | undefined;
  return positive(props.n_ctx) ?? positive(settings?.n_ctx);
}

/** The context window of `model` in a `/v1/models` answer (vLLM's `max_model_len`). */
export function contextFromModels(models: Json, model: string): number | undefined {
  const data = Array.isArray(models.data) ? (models.data as Json[]) : [];
  const entry = data.find((m) => m?.id === model) ?? (data.length === 1 ? data[0] : undefined);
  return positive(entry?.max_model_len);
}

export async function readServerInfo(opts: {
  root: string;
  apiRoot: string;
  model: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<ServerInfo> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const [props, models] = await Promise.all([
    getJson(`${opts.root}/props`, opts.headers, signal),
    getJson(`${opts.apiRoot}/models`, opts.headers, signal),
  ]);
  const info: ServerInfo = { answersProps: props !== undefined };
  const fromProps = props && contextFromProps(props);
  const fromModels = models && contextFromModels(models, opts.model);
  if (fromProps) Object.assign(info, { contextWindow: fromProps, contextSource: `${opts.root}/props` });
  else if (fromModels)
    Object.assign(info, { contextWindow: fromModels, contextSource: `${opts.apiRoot}/models` });
  if (props && typeof props.chat_template === 'string' && props.chat_template.trim()) {
    const specialTokens: Record<string, string> = {};
    for (const key of ['bos_token', 'eos_token']) {
      if (typeof props[key] === 'string') specialTokens[key] = props[key] as string;
    }
    info.chatTemplate = { template: props.chat_template, specialTokens };
  }
  return info;
}
