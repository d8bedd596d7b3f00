/**
 * Turns what an endpoint answered (status and body) or how the connection failed into a ModelError
 * that says what happened and what to do. 404 needs a probe of the server and lives in the backend.
 */

import { ModelError } from '../types';

const API_KEY_HINT =
  'Set the key with "Stepwise: Set Model Endpoint API Key" (it is kept in VS Code SecretStorage), or check that the key is valid for this server.';

/** The server's own error message from an OpenAI-style (`{error:{message}}`) or FastAPI (`{detail}`) body. */
export function serverMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object') {
      const o = parsed as Record<string, unknown>;
      const err = o.error;
      if (typeof err === 'string') return err;
      if (err && typeof err === 'object' && typeof (err as Record<string, unknown>).message === 'string') {
        return (err as Record<string, string>).message;
      }
      if (typeof o.detail === 'string') return o.detail;
      if (typeof o.message === 'string') return o.message;
    }
  } catch {
    // Not JSON: the raw text (an HTML error page from a proxy, for example) is shown, shortened.
  }
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Whether a server's error says the prompt does not fit the model's context window. */
export function isContextOverflowMessage(body: string): boolean {
  return /context_length_exceeded|context (length|window|size)|maximum context|exceeds? (the )?(model's )?(context|max)|too many tokens|prompt is too long/i.test(
    body,
  );
}

export function contextOverflowError(detail: string, contextWindow: number): ModelError {
  return new ModelError(
    `The prompt does not fit the model's context window (${contextWindow} tokens): ${detail}`,
    'context-overflow',
    'Shorten the input, lower stepwise.model.maxOutputTokens, or raise stepwise.model.contextWindow if the server was started with a larger window (llama.cpp: --n_ctx / -c; Ollama: num_ctx).',
  );
}

export function httpStatusError(
  status: number,
  body: string,
  where: string,
  contextWindow: number,
  attempts: number,
): ModelError {
  const msg = serverMessage(body);
  const said = msg ? `: ${msg}` : '.';
  if (status === 401) {
    return new ModelError(
      `The endpoint ${where} refused the request (401 Unauthorized)${said}`,
      'endpoint-auth',
      API_KEY_HINT,
    );
  }
  if (status === 403) {
    return new ModelError(
      `The endpoint ${where} denied access (403 Forbidden)${said}`,
      'endpoint-auth',
      `The API key may lack access to this model. ${API_KEY_HINT}`,
    );
  }
  if (status === 429) {
    return new ModelError(
      `The endpoint ${where} is rate-limiting requests (429 Too Many Requests), still after ${attempts} attempt(s)${said}`,
      'endpoint-rate-limit',
      'Wait a minute and try again, or use fewer candidates/passes so fewer requests are sent.',
    );
  }
  if (status >= 500) {
    return new ModelError(
      `The endpoint ${where} failed with a server error (${status}) after ${attempts} attempt(s)${said}`,
      'endpoint-server',
      "Check the server's own log; it may be out of memory or still loading the model.",
    );
  }
  if ((status === 400 || status === 413 || status === 422) && isContextOverflowMessage(body)) {
    return contextOverflowError(msg, contextWindow);
  }
  return new ModelError(
    `The endpoint ${where} rejected the request (${status})${said}`,
    'endpoint-unsupported',
    'The server may not support an option Stepwise sent (logprobs, n, seed, top_k); check its log for the field it refused.',
  );
}

/** Network-level failure (no HTTP answer at all): refused, unknown host, reset, TLS. */
export function connectionError(err: unknown, where: string): ModelError {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? (err as { code?: string })?.code;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused: nothing is listening there',
    ENOTFOUND: 'the host name is unknown',
    EAI_AGAIN: 'the host name could not be resolved',
    ECONNRESET: 'the connection was reset',
    EHOSTUNREACH: 'the host is unreachable',
    ETIMEDOUT: 'the connection timed out',
    UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
    UND_ERR_SOCKET: 'the connection closed unexpectedly',
  };
  const reason = (code && reasons[code]) ?? cause?.message ?? (err as Error)?.message ?? String(err);
  return new ModelError(
    `Cannot reach the endpoint ${where} (${reason}).`,
    'endpoint-unreachable',
    'Start the server (for example `python -m llama_cpp.server --model MODEL.gguf --port 8080`), or fix stepwise.model.openai.baseUrl.',
  );
}
