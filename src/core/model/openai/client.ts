/**
 * The HTTP side of one OpenAI-compatible API root: requests with retries and deadlines (http.ts),
 * 404s diagnosed into "wrong base URL" or "wrong model", optional fields the server refuses
 * dropped, and an unset model name filled in from the server's own list.
 */

import { ModelError } from '../types';
import { diagnoseNotFound } from './diagnose';
import { readText, send, type HttpPolicy, type OpenedResponse } from './http';
import { parseBaseUrl } from './url';

/** Request fields outside the core of OpenAI's API, which a server may refuse. */
const OPTIONAL_FIELDS = [
  'top_k',
  'stream_options',
  'seed',
  'top_logprobs',
  'logprobs',
  'min_tokens',
  'repeat_penalty',
  'repetition_penalty',
  'grammar',
  'structured_outputs',
  'guided_grammar',
];

export class EndpointClient {
  /** The normalised API root, e.g. `http://127.0.0.1:8080/v1`. */
  apiRoot: string;
  private readonly asGiven: string;
  private resolvedModel: string | undefined;
  private readonly refusedFields = new Set<string>();

  constructor(
    baseUrl: string,
    readonly headers: Record<string, string>,
    readonly policy: HttpPolicy,
    private readonly onWarning: ((message: string) => void) | undefined,
    private readonly onModelResolved: (name: string) => void,
  ) {
    const { apiRoot, asGiven } = parseBaseUrl(baseUrl);
    this.apiRoot = apiRoot;
    this.asGiven = asGiven;
  }

  /**
   * POST; a field outside the core API that the server refuses (OpenAI refuses `top_k`, some servers
   * `stream_options` or `seed`) is dropped for this and later requests, with a warning.
   */
  async post(path: string, body: Record<string, unknown>, signal: AbortSignal): Promise<OpenedResponse> {
    if (body.model === '') body = { ...body, model: await this.servedModel(signal) };
    for (;;) {
      const sent = Object.fromEntries(Object.entries(body).filter(([k]) => !this.refusedFields.has(k)));
      try {
        return await this.postOnce(path, sent, signal);
      } catch (err) {
        const refused =
          err instanceof ModelError && err.code === 'endpoint-unsupported'
            ? OPTIONAL_FIELDS.find((f) => f in sent && new RegExp(`\\b${f}\\b`).test(err.message))
            : undefined;
        if (!refused) throw err;
        this.refusedFields.add(refused);
        this.onWarning?.(`The endpoint does not accept "${refused}"; requests are sent without it.`);
      }
    }
  }

  /** A non-streamed POST whose answer must be JSON. */
  async postJson(path: string, body: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const opened = await this.post(path, body, signal);
    const text = await readText(opened, this.policy, `${this.apiRoot}${path}`, signal);
    try {
      return JSON.parse(text);
    } catch {
      throw new ModelError(
        `The endpoint ${this.apiRoot}${path} did not answer with JSON.`,
        'endpoint-malformed',
        'Check that the base URL points at an OpenAI-compatible API.',
      );
    }
  }

  /** The model ids the server offers (`GET /models`). */
  async listModels(signal: AbortSignal): Promise<string[]> {
    const url = `${this.apiRoot}/models`;
    const opened = await send(url, { method: 'GET', headers: this.headers }, this.policy, signal);
    const text = await readText(opened, this.policy, url, signal);
    if (opened.response.status === 404) throw (await this.diagnose('/models', '', text)).error;
    try {
      const data = (JSON.parse(text) as { data?: { id?: unknown }[] }).data;
      if (!Array.isArray(data)) throw new Error('no data array');
      return data.map((m) => String(m?.id ?? '')).filter(Boolean);
    } catch {
      throw new ModelError(
        `The endpoint ${url} did not answer with a model list.`,
        'endpoint-malformed',
        'Check that the base URL points at an OpenAI-compatible API.',
      );
    }
  }

  /** One POST with a 404 turned into a diagnosis (and one retry when the server lives at the URL as given). */
  private async postOnce(path: string, body: Record<string, unknown>, signal: AbortSignal) {
    const init = {
      method: 'POST' as const,
      headers: { ...this.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    };
    for (let attempt = 0; ; attempt++) {
      const opened = await send(`${this.apiRoot}${path}`, init, this.policy, signal);
      if (opened.response.status !== 404) return opened;
      const text = await readText(opened, this.policy, `${this.apiRoot}${path}`, signal).catch(() => '');
      const diagnosis = await this.diagnose(path, String(body.model ?? ''), text);
      if (!diagnosis.switchTo || attempt > 0) throw diagnosis.error;
      this.apiRoot = diagnosis.switchTo;
    }
  }

  private diagnose(path: string, model: string, body: string) {
    return diagnoseNotFound({
      apiRoot: this.apiRoot,
      userRoot: this.asGiven,
      path,
      model,
      body,
      headers: this.headers,
      timeoutMs: Math.min(this.policy.timeoutMs, 5000),
    });
  }

  /** With no model name set, the server's first listed model (single-model servers list exactly one). */
  private async servedModel(signal: AbortSignal): Promise<string> {
    if (!this.resolvedModel) {
      const [first] = await this.listModels(signal);
      if (!first) {
        throw new ModelError(
          `No model name is set and ${this.apiRoot}/models lists none.`,
          'endpoint-not-found',
          'Set stepwise.model.openai.model to the name the server expects.',
        );
      }
      this.resolvedModel = first;
      this.onModelResolved(first);
    }
    return this.resolvedModel;
  }
}
