/**
 * ModelBackend over any OpenAI-compatible HTTP server (llama.cpp, llama-cpp-python, vLLM, Ollama,
 * LM Studio, OpenAI). Chat messages go to /chat/completions, raw prompts to /completions; every
 * generation streams, so tokens arrive as they are made and cancellation keeps what came so far.
 */

import {
  ModelError,
  type ChatMessage,
  type Completion,
  type GenerateOptions,
  type GenerateResult,
  type ModelBackend,
  type ModelInfo,
  type ModelInput,
  type ScoreResult,
} from '../types';
import { withoutPlans, type PlanOptions, type PlanResult, type PlanSegment, type PlanSupport } from '../plan';
import { StreamAccumulator } from './accumulator';
import { estimateTokens, inputText, planContext } from './context';
import { EndpointClient } from './client';
import { abortedError, readBody, readText, type HttpPolicy } from './http';
import { EchoScorer } from './scorer';
import { ServerTokenizer } from './serverTokenizer';
import { SseParser } from './sse';
import { splitReasoning } from './think';
import { serverRoot } from './url';

export interface OpenAIBackendOptions {
  /** Server address with or without `/v1` (`http://127.0.0.1:8080`, `http://127.0.0.1:8080/v1`). */
  baseUrl: string;
  /** Model name sent in every request; many single-model servers accept any. */
  model: string;
  /** Sent as `Authorization: Bearer …`. The caller reads it from SecretStorage, never from settings. */
  apiKey?: string;
  /** Extra headers (an organisation id, a proxy's routing header). */
  headers?: Record<string, string>;
  /** Tokens the server's model can see at once (prompt + answer). Default 2048. */
  contextWindow?: number;
  /** Answer length when a call does not say. Default 512. */
  maxOutputTokens?: number;
  /** Deadline for the response headers, in ms. Default 60000. */
  timeoutMs?: number;
  /** Deadline between two chunks of a stream, in ms. Default: timeoutMs. */
  idleTimeoutMs?: number;
  /** Retries for 429, 5xx and connection failures. Default 2. */
  retries?: number;
  /** First backoff delay; it doubles per retry, with jitter. Default 500. */
  retryBaseDelayMs?: number;
  /** Longest single wait, also the cap on Retry-After. Default 20000. */
  maxRetryDelayMs?: number;
  /** Exact token count of a text, when the caller has the model's tokenizer. */
  countTokens?: (text: string) => number;
  /** The model's chat template, needed to score chat messages (scoring goes through /completions). */
  renderChatPrompt?: (messages: ChatMessage[]) => string;
  /** Things the user should know that do not stop the call (an answer budget cut to fit the window). */
  onWarning?: (message: string) => void;
}

export class OpenAIBackend implements ModelBackend {
  readonly info: ModelInfo;
  private readonly client: EndpointClient;
  private readonly policy: HttpPolicy;
  private readonly maxOutputTokens: number;
  private readonly tokenizer: ServerTokenizer;
  private readonly scorer: EchoScorer;
  private readonly disposed = new AbortController();

  /** What `createModelBackend` calls; nothing is sent until the first request. */
  static create(options: OpenAIBackendOptions): OpenAIBackend {
    return new OpenAIBackend(options);
  }

  constructor(private readonly options: OpenAIBackendOptions) {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const contextWindow = options.contextWindow ?? 2048;
    this.policy = {
      timeoutMs,
      idleTimeoutMs: options.idleTimeoutMs ?? timeoutMs,
      retries: options.retries ?? 2,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 20_000,
      contextWindow,
    };
    const headers = {
      accept: 'application/json, text/event-stream',
      ...options.headers,
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    };
    this.info = { backend: 'openai', name: options.model, device: 'remote', contextWindow };
    this.client = new EndpointClient(options.baseUrl, headers, this.policy, options.onWarning, (name) => {
      this.info.name = name;
    });
    this.maxOutputTokens = options.maxOutputTokens ?? 512;
    this.scorer = new EchoScorer(
      options.model,
      (body, signal) => this.client.postJson('/completions', body, signal),
      () => this.client.apiRoot,
    );
    const root = serverRoot(this.client.apiRoot);
    this.tokenizer = new ServerTokenizer(root, options.model, headers, Math.min(timeoutMs, 5000));
  }

  /** The normalised API root requests go to, e.g. `http://127.0.0.1:8080/v1`. */
  get apiRoot(): string {
    return this.client.apiRoot;
  }

  async generate(input: ModelInput, options: GenerateOptions = {}): Promise<GenerateResult> {
    const started = Date.now();
    const signal = this.callSignal(options.signal);
    const requested = options.maxTokens ?? this.maxOutputTokens;
    const counted = await this.countPromptTokens(input, requested, signal);
    const plan = planContext(counted.tokens, requested, this.info.contextWindow, counted.exact);
    if (plan.warning) this.options.onWarning?.(plan.warning);

    const chat = typeof input !== 'string';
    const path = chat ? '/chat/completions' : '/completions';
    const n = Math.max(1, Math.floor(options.n ?? 1));
    const wantLogprobs = options.logprobs ?? true;
    const body = (count: number, seed: number | undefined): Record<string, unknown> => ({
      model: this.options.model,
      ...(chat ? { messages: input } : { prompt: input }),
      max_tokens: plan.maxTokens,
      stream: true,
      stream_options: { include_usage: true },
      ...(options.temperature !== undefined && { temperature: options.temperature }),
      ...(options.topP !== undefined && { top_p: options.topP }),
      // Not in OpenAI's API; llama.cpp, vLLM and Ollama accept it, others ignore unknown fields.
      ...(options.topK !== undefined && { top_k: options.topK }),
      ...(seed !== undefined && { seed }),
      ...(options.stop?.length && { stop: options.stop }),
      ...(count > 1 && { n: count }),
      // llama-cpp-python returns chat logprobs only when top_logprobs is set too.
      ...(wantLogprobs && (chat ? { logprobs: true, top_logprobs: 1 } : { logprobs: 0 })),
    });

    const acc = new StreamAccumulator(
      chat ? 'chat' : 'completion',
      0,
      !!options.stop?.length,
      this.info.contextWindow,
      `${this.apiRoot}${path}`,
      options.onToken,
    );
    let aborted = await this.stream(path, body(n, options.seed), acc, signal);
    // Servers that ignore `n` (llama-cpp-python) answer with one sequence: ask again for the rest.
    while (!aborted && acc.sequences.size < n) {
      const next = new StreamAccumulator(
        chat ? 'chat' : 'completion',
        acc.sequences.size,
        !!options.stop?.length,
        this.info.contextWindow,
        `${this.apiRoot}${path}`,
        options.onToken,
      );
      const seed = options.seed === undefined ? undefined : options.seed + acc.sequences.size;
      aborted = await this.stream(path, body(1, seed), next, signal);
      if (next.sequences.size === 0) break;
      for (const [i, s] of next.sequences) acc.sequences.set(i, s);
      acc.firstTokenAt ??= next.firstTokenAt;
    }

    const completions: Completion[] = [];
    for (let i = 0; i < Math.max(n, acc.sequences.size); i++) {
      const seq = acc.sequences.get(i) ?? { raw: '', reasoning: '', tokens: [] };
      const split = splitReasoning(seq.raw);
      const reasoning = [seq.reasoning.trim(), split.reasoning].filter((r) => r).join('\n\n');
      completions.push({
        text: split.answer,
        tokens: seq.tokens,
        finishReason: seq.finishReason ?? 'abort',
        ...(reasoning && { reasoning }),
      });
    }
    const totalMs = Date.now() - started;
    return {
      completions,
      promptTokens: acc.promptTokens ?? counted.tokens,
      timeToFirstTokenMs: acc.firstTokenAt !== undefined ? acc.firstTokenAt - started : totalMs,
      totalMs,
    };
  }

  /** Streams one request into `acc`; true when the caller cancelled (what arrived is kept). */
  private async stream(
    path: string,
    body: Record<string, unknown>,
    acc: StreamAccumulator,
    signal: AbortSignal,
  ): Promise<boolean> {
    const url = `${this.apiRoot}${path}`;
    let events = 0;
    try {
      const opened = await this.client.post(path, body, signal);
      const parser = new SseParser();
      const contentType = opened.response.headers.get('content-type') ?? '';
      if (contentType.includes('application/json')) {
        // A server that ignores `stream: true` answers with one JSON object; take it as it is.
        acc.handle(await readText(opened, this.policy, url, signal));
        acc.sawDone = true;
        return false;
      }
      for await (const chunk of readBody(opened, this.policy, url, signal)) {
        for (const event of parser.push(chunk)) {
          events++;
          acc.handle(event.data);
        }
        if (acc.sawDone) break;
      }
      if (!acc.sawDone) {
        for (const event of parser.end()) {
          events++;
          try {
            acc.handle(event.data);
          } catch (err) {
            // An event the stream's end cut short is a closed connection, not a server that
            // speaks another format.
            if (err instanceof ModelError && err.code === 'endpoint-malformed')
              throw closedMidStream(url, acc);
            throw err;
          }
        }
      }
    } catch (err) {
      if (err instanceof ModelError && err.code === 'aborted') return true;
      throw err;
    }
    if (events === 0 && body.stream) {
      // An empty stream is how some servers (llama-cpp-python) fail once the headers are out, e.g.
      // for a prompt longer than their window. Asked again without streaming, they say why.
      const { stream_options: _, ...rest } = body;
      return this.stream(path, { ...rest, stream: false }, acc, signal);
    }
    if (!acc.sawDone && !acc.allFinished()) throw closedMidStream(url, acc);
    return false;
  }

  async score(
    prompt: ModelInput,
    continuation: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ScoreResult> {
    const signal = this.callSignal(options.signal);
    let promptText: string;
    if (typeof prompt === 'string') promptText = prompt;
    else if (this.options.renderChatPrompt) promptText = this.options.renderChatPrompt(prompt);
    else {
      throw new ModelError(
        'Scoring chat messages over an OpenAI-compatible endpoint needs the model chat template, which was not given.',
        'endpoint-unsupported',
        'Score a raw prompt string instead, or use the local ONNX backend, which applies the template itself.',
      );
    }
    return this.scorer.score(promptText, continuation, signal);
  }

  async planSupport(): Promise<PlanSupport> {
    return { mode: 'none', reason: 'plans over endpoints are not built yet' };
  }

  async generatePlan(input: ModelInput, plan: PlanSegment[], options?: PlanOptions): Promise<PlanResult> {
    return withoutPlans('plans over endpoints are not built yet').generatePlan(input, plan, options);
  }

  /** The model ids the server offers (`GET /models`). */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    return this.client.listModels(this.callSignal(signal));
  }

  async dispose(): Promise<void> {
    this.disposed.abort();
  }

  private callSignal(signal?: AbortSignal): AbortSignal {
    if (this.disposed.signal.aborted) {
      throw new ModelError('The model backend was disposed.', 'aborted', 'Select the model again.');
    }
    return signal ? AbortSignal.any([signal, this.disposed.signal]) : this.disposed.signal;
  }

  private async countPromptTokens(input: ModelInput, maxTokens: number, signal: AbortSignal) {
    const text = inputText(input);
    const overhead = typeof input === 'string' ? 0 : estimateTokens(input) - estimateTokens(text);
    if (this.options.countTokens) return { tokens: this.options.countTokens(text) + overhead, exact: true };
    const estimate = estimateTokens(input);
    // Asking the server costs a round trip; only worth it when the estimate is anywhere near the limit.
    if (estimate + maxTokens < this.info.contextWindow / 2) return { tokens: estimate, exact: false };
    const exact = await this.tokenizer.count(text, signal);
    if (signal.aborted) throw abortedError();
    return exact === undefined
      ? { tokens: estimate, exact: false }
      : { tokens: exact + overhead, exact: true };
  }
}

function closedMidStream(url: string, acc: StreamAccumulator): ModelError {
  const tokens = [...acc.sequences.values()].reduce((n, q) => n + q.tokens.length, 0);
  return new ModelError(
    `The server closed the connection in the middle of a response from ${url} (no [DONE] and no finish reason, after ${tokens} tokens).`,
    'endpoint-malformed',
    "The server may have crashed or a proxy cut the connection; check the server's log and try again.",
  );
}
