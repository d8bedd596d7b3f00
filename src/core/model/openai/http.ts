/**
 * HTTP transport for the OpenAI-compatible backend: global fetch with a deadline for the response
 * headers, an idle deadline between body chunks, retries with exponential backoff and jitter for
 * 429/5xx/connection failures (honouring Retry-After), and the caller's AbortSignal throughout.
 */

import { setTimeout as delay } from 'node:timers/promises';
import { ModelError } from '../types';
import { connectionError, httpStatusError } from './errors';

export interface HttpPolicy {
  /** Milliseconds to wait for the response headers (connect + queueing + prompt processing). */
  timeoutMs: number;
  /** Milliseconds allowed between two body chunks of a stream. */
  idleTimeoutMs: number;
  /** Extra attempts after the first for 429, 5xx and connection failures. */
  retries: number;
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;
  /** Only for the wording of context-overflow errors. */
  contextWindow: number;
}

export interface OpenedResponse {
  response: Response;
  /** Aborting it ends the body stream; `body()` uses it for the idle deadline. */
  controller: AbortController;
  /** Detaches the caller's signal; call when done with the body. */
  release(): void;
}

class TimeoutReason extends Error {}

const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

export function abortedError(): ModelError {
  return new ModelError('The request was cancelled.', 'aborted');
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function backoffMs(attempt: number, policy: HttpPolicy, retryAfter?: number): number {
  if (retryAfter !== undefined) return Math.min(retryAfter, policy.maxRetryDelayMs);
  const ceiling = Math.min(policy.retryBaseDelayMs * 2 ** attempt, policy.maxRetryDelayMs);
  // "Equal jitter": at least half the exponential delay, so clients that failed together spread out.
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Sends a request and returns the response once its status is OK. Non-OK answers become ModelErrors,
 * except 404, which is returned so the caller can diagnose it (wrong base URL or wrong model).
 */
export async function send(
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  policy: HttpPolicy,
  signal?: AbortSignal,
): Promise<OpenedResponse> {
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw abortedError();
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const release = () => signal?.removeEventListener('abort', onAbort);
    const timer = setTimeout(() => controller.abort(new TimeoutReason()), policy.timeoutMs);
    let retryable: { error: ModelError; wait?: number };
    try {
      const response = await fetch(url, { ...init, signal: controller.signal });
      clearTimeout(timer);
      if (response.ok || response.status === 404) return { response, controller, release };
      const body = await response.text().catch(() => '');
      release();
      const error = httpStatusError(response.status, body, url, policy.contextWindow, attempt + 1);
      if (!RETRY_STATUSES.has(response.status)) throw error;
      retryable = { error, wait: retryAfterMs(response.headers.get('retry-after')) };
    } catch (err) {
      clearTimeout(timer);
      release();
      if (err instanceof ModelError) throw err;
      if (signal?.aborted) throw abortedError();
      if (controller.signal.reason instanceof TimeoutReason) {
        throw new ModelError(
          `The endpoint ${url} did not answer within ${Math.round(policy.timeoutMs / 1000)} s.`,
          'endpoint-unreachable',
          'A local server may still be loading the model or busy with another request; raise stepwise.model.openai.timeoutMs if it is just slow.',
        );
      }
      retryable = { error: connectionError(err, url) };
    }
    if (attempt >= policy.retries) throw retryable.error;
    try {
      await delay(backoffMs(attempt, policy, retryable.wait), undefined, { signal });
    } catch {
      throw abortedError();
    }
  }
}

/**
 * The response body chunk by chunk; aborts with a clear error when the server goes silent for longer
 * than the idle deadline. Throws ModelError('aborted') when the caller cancels.
 */
export async function* readBody(
  opened: OpenedResponse,
  policy: HttpPolicy,
  url: string,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const body = opened.response.body;
  if (!body) return;
  const reader = body.getReader();
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => opened.controller.abort(new TimeoutReason()), policy.idleTimeoutMs);
  };
  try {
    for (;;) {
      arm();
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (signal?.aborted) throw abortedError();
        if (opened.controller.signal.reason instanceof TimeoutReason) {
          throw new ModelError(
            `The endpoint ${url} stopped sending for ${Math.round(policy.idleTimeoutMs / 1000)} s in the middle of a response.`,
            'endpoint-server',
            "Check the server's log; raise stepwise.model.openai.timeoutMs if it is just slow.",
          );
        }
        throw new ModelError(
          `The server closed the connection to ${url} in the middle of a response (${(err as Error)?.message ?? err}).`,
          'endpoint-malformed',
          "The server may have crashed or a proxy cut the connection; check the server's log and try again.",
        );
      }
      if (chunk.done) return;
      yield chunk.value;
    }
  } finally {
    clearTimeout(timer);
    opened.release();
    reader.cancel().catch(() => undefined);
  }
}

export async function readText(
  opened: OpenedResponse,
  policy: HttpPolicy,
  url: string,
  signal?: AbortSignal,
) {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of readBody(opened, policy, url, signal))
    text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
