/**
 * What one backend knows about its server beyond the API: the context window (the server's
 * figure, else the user's, else 2048 with a warning), the chat template (the caller's renderer,
 * the server's own, or the one in a local tokenizer folder) and exact token counts from that
 * folder. The server is asked once.
 */
import { ChatTemplate } from '../chatTemplate';
import type { ChatMessage, ModelInput, RepetitionOptions } from '../types';
import { estimateTokens, inputText } from './context';
import { abortedError } from './http';
import { LocalTokenizer } from './localTokenizer';
import { readServerInfo, type ServerInfo } from './serverInfo';
import type { ServerTokenizer } from './serverTokenizer';
import { serverRoot } from './url';

/** What is assumed, with a warning, when neither the server nor the user says. */
export const DEFAULT_CONTEXT_WINDOW = 2048;

/**
 * The repetition penalty as servers name it (llama.cpp `repeat_penalty`, vLLM `repetition_penalty`),
 * sent only when the caller sets one: servers apply their own defaults otherwise, and the n-gram
 * ban has no server equivalent.
 */
export function repetitionFields(repetition: RepetitionOptions | undefined): Record<string, unknown> {
  if (repetition?.penalty === undefined) return {};
  return { repeat_penalty: repetition.penalty, repetition_penalty: repetition.penalty };
}

export interface ServerProfileOptions {
  model: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** The API root requests go to now (it may change once a 404 is diagnosed). */
  apiRoot: () => string;
  /** The window the user set, if any. */
  configuredWindow?: number;
  tokenizerDir?: string;
  renderChatPrompt?: (messages: ChatMessage[]) => string;
  /** Exact token count of a text, when the caller has the model's tokenizer. */
  countTokens?: (text: string) => number;
  serverTokenizer: ServerTokenizer;
  onWarning?: (message: string) => void;
  /** Called with the window to use once the server has been asked. */
  useContextWindow: (tokens: number) => void;
}

export class ServerProfile {
  readonly localTokenizer: LocalTokenizer | undefined;
  private asked: Promise<ServerInfo> | undefined;
  private serverTemplate: ChatTemplate | undefined;

  constructor(private readonly o: ServerProfileOptions) {
    this.localTokenizer = o.tokenizerDir ? LocalTokenizer.load(o.tokenizerDir) : undefined;
  }

  /** Asks the server once; never throws (a server that says nothing leaves the configured figures). */
  read(signal?: AbortSignal): Promise<ServerInfo> {
    this.asked ??= readServerInfo({
      root: serverRoot(this.o.apiRoot()),
      apiRoot: this.o.apiRoot(),
      model: this.o.model,
      headers: this.o.headers,
      timeoutMs: this.o.timeoutMs,
      signal,
    }).then((info) => {
      const configured = this.o.configuredWindow;
      if (info.contextWindow) {
        if (configured && configured !== info.contextWindow) {
          this.o.onWarning?.(
            `The context window is set to ${configured} tokens, but ${info.contextSource} says ${info.contextWindow}; using the server's figure.`,
          );
        }
        this.o.useContextWindow(info.contextWindow);
      } else if (!configured) {
        this.o.onWarning?.(
          `${this.o.apiRoot()} does not say how many tokens its model reads at once; assuming ${DEFAULT_CONTEXT_WINDOW}. Set the real figure with --context-window N (command line) or stepwise.model.contextWindow (editor).`,
        );
      }
      if (info.chatTemplate) this.serverTemplate = new ChatTemplate(info.chatTemplate);
      return info;
    });
    return this.asked;
  }

  /** The prompt text of chat messages, or undefined when no chat template is known. */
  async chatPrompt(messages: ChatMessage[], signal?: AbortSignal): Promise<string | undefined> {
    if (this.o.renderChatPrompt) return this.o.renderChatPrompt(messages);
    await this.read(signal);
    if (this.serverTemplate) return this.serverTemplate.render(messages);
    return this.localTokenizer?.render(messages);
  }

  /** Tokens of a text: the caller's or the local tokenizer's count, the server's, or an estimate. */
  async countText(text: string, signal: AbortSignal): Promise<number> {
    if (this.o.countTokens) return this.o.countTokens(text);
    if (this.localTokenizer) return this.localTokenizer.count(text);
    return (await this.o.serverTokenizer.count(text, signal)) ?? estimateTokens(text);
  }

  /**
   * Tokens of a prompt before it is sent: exact where the caller or a local tokenizer can count,
   * the server's count where an estimate says the prompt is near the window, else the estimate.
   */
  async countPrompt(input: ModelInput, maxTokens: number, window: number, signal: AbortSignal) {
    const text = inputText(input);
    const overhead = typeof input === 'string' ? 0 : estimateTokens(input) - estimateTokens(text);
    if (this.o.countTokens) return { tokens: this.o.countTokens(text) + overhead, exact: true };
    if (this.localTokenizer) return { tokens: this.localTokenizer.count(text) + overhead, exact: true };
    const estimate = estimateTokens(input);
    // Asking the server costs a round trip; only worth it when the estimate is anywhere near the limit.
    if (estimate + maxTokens < window / 2) return { tokens: estimate, exact: false };
    const exact = await this.o.serverTokenizer.count(text, signal);
    if (signal.aborted) throw abortedError();
    return exact === undefined
      ? { tokens: estimate, exact: false }
      : { tokens: exact + overhead, exact: true };
  }
}
