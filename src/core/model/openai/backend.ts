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
import type { PlanOptions, PlanResult, PlanSegment, PlanSupport } from '../plan';
import { StreamAccumulator } from './accumulator';
import { planContext } from './context';
import { EndpointClient } from './client';
import { DEFAULT_ENDPOINT_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_TOKENS } from '../lengths';
import { abortedError, type HttpPolicy } from './http';
import { EndpointPlans, type AssertionGrammarSetting } from './plans';
import type { StreamedText } from './planRunner';
import { EchoScorer } from './scorer';
import { DEFAULT_CONTEXT_WINDOW, ServerProfile, repetitionFields } from './serverProfile';
import { ServerTokenizer } from './serverTokenizer';
import { streamInto } from './streaming';
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
  /**
   * Tokens the server's model can see at once (prompt + answer), as the user set it. The server's
   * own figure (llama.cpp `/props`, vLLM `/v1/models`) wins where it gives one; with neither, 2048
   * is assumed and said through `onWarning`.
   */
  contextWindow?: number;
  /**
   * The served model's Hugging Face tokenizer folder: exact token counts, and the chat template
   * for servers that do not expose theirs (plans over chat messages need it).
   */
  tokenizerDir?: string;
  /**
   * How much of an assertion line the server's grammar describes: `expressions` (all of it),
   * `lines` (the opening only, far cheaper on llama-cpp-python), or `auto` (by server). Default auto.
   */
  assertionGrammar?: AssertionGrammarSetting;
  /** Answer length when a call does not say. Default DEFAULT_MAX_OUTPUT_TOKENS. */
  maxOutputTokens?: number;
  /** Deadline for the response headers, in ms. Default DEFAULT_ENDPOINT_TIMEOUT_MS. */
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
  private readonly scorer: EchoScorer;
  private readonly disposed = new AbortController();
  private readonly plans: EndpointPlans;
  private readonly profile: ServerProfile;

  /** A backend that has not yet talked to the server: it asks for the context window on its first request. */
  static create(options: OpenAIBackendOptions): OpenAIBackend {
    return new OpenAIBackend(options);
  }

  /** What `createModelBackend` calls: a backend whose `info.contextWindow` is the server's where it says. */
  static async connect(options: OpenAIBackendOptions): Promise<OpenAIBackend> {
    const backend = new OpenAIBackend(options);
    await backend.profile.read();
    return backend;
  }

  constructor(private readonly options: OpenAIBackendOptions) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS;
    const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
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
    this.maxOutputTokens = options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    this.scorer = new EchoScorer(
      options.model,
      (body, signal) => this.client.postJson('/completions', body, signal),
      () => this.client.apiRoot,
    );
    const root = serverRoot(this.client.apiRoot);
    this.profile = new ServerProfile({
      model: options.model,
      headers,
      timeoutMs: Math.min(timeoutMs, 5000),
      apiRoot: () => this.client.apiRoot,
      configuredWindow: options.contextWindow,
      tokenizerDir: options.tokenizerDir,
      renderChatPrompt: options.renderChatPrompt,
      countTokens: options.countTokens,
      serverTokenizer: new ServerTokenizer(root, options.model, headers, Math.min(timeoutMs, 5000)),
      onWarning: options.onWarning,
      useContextWindow: (tokens) => {
        this.info.contextWindow = tokens;
        this.policy.contextWindow = tokens;
      },
    });
    this.plans = new EndpointPlans({
      complete: (body, signal) =>
        this.client.postJson('/completions', { model: this.options.model, ...body, stream: false }, signal),
      stream: (body, onText, signal) => this.streamCompletion(body, onText, signal),
      countTokens: (text, signal) => this.profile.countText(text, signal),
      samplingFields: (o, seed) => ({
        ...(o.temperature !== undefined && { temperature: o.temperature }),
        ...(o.topP !== undefined && { top_p: o.topP }),
        ...(o.topK !== undefined && { top_k: o.topK }),
        ...(seed !== undefined && { seed }),
        ...repetitionFields(o.repetition),
      }),
      contextWindow: () => this.info.contextWindow,
      renderChat: (messages, signal) => this.profile.chatPrompt(messages, signal),
      assertionGrammar: options.assertionGrammar ?? 'auto',
      answersProps: async (signal) => (await this.profile.read(signal)).answersProps,
      where: () => `The endpoint ${this.apiRoot}`,
    });
  }

  async planSupport(): Promise<PlanSupport> {
    return this.plans.support(this.callSignal());
  }

  async generatePlan(input: ModelInput, plan: PlanSegment[], options: PlanOptions = {}): Promise<PlanResult> {
    return this.plans.run(input, plan, options, this.callSignal(options.signal));
  }

  /** One streamed `/completions` request for a plan segment. */
  private async streamCompletion(
    body: Record<string, unknown>,
    onText: (text: string) => void,
    signal: AbortSignal,
  ): Promise<StreamedText> {
    const acc = new StreamAccumulator(
      'completion',
      0,
      false,
      this.info.contextWindow,
      `${this.apiRoot}/completions`,
      (e) => onText(e.text),
    );
    const full = {
      model: this.options.model,
      ...body,
      stream: true,
      stream_options: { include_usage: true },
    };
    if (await this.stream('/completions', full, acc, signal)) throw abortedError();
    const seq = acc.sequences.get(0);
    const reason = seq?.finishReason;
    return { text: seq?.raw ?? '', finishReason: reason === 'eos' ? 'stop' : (reason ?? 'stop') };
  }

  /** The normalised API root requests go to, e.g. `http://127.0.0.1:8080/v1`. */
  get apiRoot(): string {
    return this.client.apiRoot;
  }

  async generate(input: ModelInput, options: GenerateOptions = {}): Promise<GenerateResult> {
    const started = Date.now();
    const signal = this.callSignal(options.signal);
    await this.profile.read(signal);
    const requested = options.maxTokens ?? this.maxOutputTokens;
    const counted = await this.profile.countPrompt(input, requested, this.info.contextWindow, signal);
    const plan = planContext(counted.tokens, requested, this.info.contextWindow, counted.exact);
    if (plan.warning) this.options.onWarning?.(plan.warning);

    const chat = typeof input !== 'string';
    const path = chat ? '/chat/completions' : '/completions';
    const n = Math.max(1, Math.floor(options.n ?? 1));
    // Only where the caller reads them: llama-cpp-python, for one, decodes several times slower with them.
    const wantLogprobs = options.logprobs === true;
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
      // Not in OpenAI's API; llama.cpp, llama-cpp-python and vLLM honour it.
      ...(options.minTokens && { min_tokens: options.minTokens }),
      ...repetitionFields(options.repetition),
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
  private stream(
    path: string,
    body: Record<string, unknown>,
    acc: StreamAccumulator,
    signal: AbortSignal,
  ): Promise<boolean> {
    return streamInto(this.client, this.policy, path, body, acc, signal);
  }

  async score(
    prompt: ModelInput,
    continuation: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ScoreResult> {
    const signal = this.callSignal(options.signal);
    const promptText = typeof prompt === 'string' ? prompt : await this.profile.chatPrompt(prompt, signal);
    if (promptText === undefined) {
      throw new ModelError(
        'Scoring chat messages over an OpenAI-compatible endpoint needs the model chat template, which was not given and the server does not expose.',
        'endpoint-unsupported',
        "Give the model's tokenizer folder (stepwise.model.openai.tokenizerPath, --tokenizer DIR), score a raw prompt string instead, or use the local ONNX backend, which applies the template itself.",
      );
    }
    return this.scorer.score(promptText, continuation, signal);
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
}
