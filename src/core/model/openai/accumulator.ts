/**
 * Collects the `data:` payloads of an OpenAI-style stream (chat or legacy completions) into
 * per-sequence text, tokens and finish reasons. The envelope is protocol, so a payload that is not
 * JSON is an endpoint error; the text inside is model output and is only ever stored, never parsed.
 */

import { ModelError, type FinishReason, type GeneratedToken, type TokenEvent } from '../types';
import { contextOverflowError, isContextOverflowMessage, serverMessage } from './errors';

export type EndpointKind = 'chat' | 'completion';

export interface SequenceState {
  raw: string;
  /** Reasoning the server already separated (`reasoning_content` / `reasoning` in chat deltas). */
  reasoning: string;
  tokens: GeneratedToken[];
  finishReason?: FinishReason;
}

type Json = Record<string, unknown>;

function asObject(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export class StreamAccumulator {
  readonly sequences = new Map<number, SequenceState>();
  promptTokens: number | undefined;
  sawDone = false;
  firstTokenAt: number | undefined;
  private chunks = 0;

  constructor(
    private readonly kind: EndpointKind,
    /** Added to the server's choice index: sequences of follow-up requests continue the numbering. */
    private readonly sequenceOffset: number,
    private readonly hadStopStrings: boolean,
    private readonly contextWindow: number,
    private readonly where: string,
    private readonly onToken?: (event: TokenEvent) => void,
  ) {}

  /** One event's data. Throws ModelError for a payload that is not JSON or an error event. */
  handle(data: string): void {
    this.chunks++;
    if (data.trim() === '[DONE]') {
      this.sawDone = true;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      const shown = data.length > 200 ? `${data.slice(0, 200)}…` : data;
      throw new ModelError(
        `The endpoint ${this.where} sent a stream chunk that is not JSON (chunk ${this.chunks}): ${shown}`,
        'endpoint-malformed',
        'The server does not speak the OpenAI streaming format correctly; check that the base URL points at an OpenAI-compatible API.',
      );
    }
    this.handleObject(asObject(parsed) ?? {});
  }

  handleObject(chunk: Json): void {
    if (chunk.error !== undefined) {
      const text = JSON.stringify(chunk);
      if (isContextOverflowMessage(text)) throw contextOverflowError(serverMessage(text), this.contextWindow);
      throw new ModelError(
        `The endpoint ${this.where} reported an error in the middle of a response: ${serverMessage(text)}`,
        'endpoint-server',
        "Check the server's log.",
      );
    }
    const usage = asObject(chunk.usage);
    if (usage && typeof usage.prompt_tokens === 'number') this.promptTokens = usage.prompt_tokens;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const c of choices) {
      const choice = asObject(c);
      if (!choice) continue;
      const index = (typeof choice.index === 'number' ? choice.index : 0) + this.sequenceOffset;
      const seq = this.sequence(index);
      if (this.kind === 'chat') this.chatChoice(choice, index, seq);
      else this.completionChoice(choice, index, seq);
      if (typeof choice.finish_reason === 'string')
        seq.finishReason = this.finishReason(choice.finish_reason);
    }
  }

  private sequence(index: number): SequenceState {
    let seq = this.sequences.get(index);
    if (!seq) {
      seq = { raw: '', reasoning: '', tokens: [] };
      this.sequences.set(index, seq);
    }
    return seq;
  }

  private chatChoice(choice: Json, index: number, seq: SequenceState): void {
    // Non-streamed answers carry `message`, streamed ones `delta`.
    const delta = asObject(choice.delta) ?? asObject(choice.message) ?? {};
    for (const key of ['reasoning_content', 'reasoning']) {
      if (typeof delta[key] === 'string') seq.reasoning += delta[key];
    }
    const text = typeof delta.content === 'string' ? delta.content : '';
    const entries = Array.isArray(asObject(choice.logprobs)?.content)
      ? (asObject(choice.logprobs)!.content as unknown[]).map(asObject).filter((e): e is Json => !!e)
      : [];
    const pieces = entries.map((e) => ({
      text: typeof e.token === 'string' ? e.token : '',
      logprob: typeof e.logprob === 'number' ? e.logprob : null,
    }));
    this.addText(index, seq, text, pieces);
  }

  private completionChoice(choice: Json, index: number, seq: SequenceState): void {
    const text = typeof choice.text === 'string' ? choice.text : '';
    const lp = asObject(choice.logprobs);
    const tokens = Array.isArray(lp?.tokens) ? (lp!.tokens as unknown[]) : [];
    const values = Array.isArray(lp?.token_logprobs) ? (lp!.token_logprobs as unknown[]) : [];
    const pieces = tokens.map((t, i) => ({
      text: typeof t === 'string' ? t : '',
      logprob: typeof values[i] === 'number' ? (values[i] as number) : null,
    }));
    this.addText(index, seq, text, pieces);
  }

  /** Emits one token event per server token when they add up to the text, else one for the whole delta. */
  private addText(index: number, seq: SequenceState, text: string, pieces: GeneratedToken[]): void {
    if (text === '' && pieces.length === 0) return;
    this.firstTokenAt ??= Date.now();
    seq.raw += text;
    const consistent = pieces.length > 0 && pieces.map((p) => p.text).join('') === text;
    if (consistent) {
      for (const p of pieces) {
        seq.tokens.push(p);
        this.onToken?.({ sequence: index, text: p.text, ...(p.logprob !== null && { logprob: p.logprob }) });
      }
      return;
    }
    const logprob = pieces.length === 1 ? pieces[0].logprob : null;
    seq.tokens.push({ text, logprob });
    this.onToken?.({ sequence: index, text, ...(logprob !== null && { logprob }) });
  }

  private finishReason(reason: string): FinishReason {
    if (reason === 'length') return 'length';
    // OpenAI says "stop" both for the end-of-sequence token and for a stop string; without stop
    // strings in the request it can only have been the end of sequence.
    if (reason === 'stop' || reason === 'eos') return this.hadStopStrings ? 'stop' : 'eos';
    return 'stop';
  }

  /** True when every sequence seen has a finish reason (some servers omit `[DONE]` after that). */
  allFinished(): boolean {
    return this.sequences.size > 0 && [...this.sequences.values()].every((s) => s.finishReason !== undefined);
  }
}
