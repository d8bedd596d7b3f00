/**
 * Runs a generation plan over an OpenAI-compatible endpoint by continuing a forced prefix through
 * `/v1/completions`: the prompt (chat template applied here) plus everything written so far is
 * the prompt of each request. Free text is one streamed request with its stop strings and budget;
 * a choice is scored from top log-probabilities (choiceScore.ts); assertion lines are one request
 * under the server's grammar where it has one, and are checked line by line either way.
 */
import { AssertionAutomaton } from '../assertionLines';
import type {
  AssertionLines,
  Choice,
  ConstrainedPlanMode,
  FreeText,
  PlanCompletion,
  PlanOptions,
  PlanResult,
  PlanSegment,
  SegmentResult,
} from '../plan';
import {
  assertionsResult,
  choiceResult,
  choiceTerminator,
  interpretPlan,
  pickOption,
} from '../planInterpreter';
import { SeededRandom, randomSeed } from '../sampling';
import type { TokenEvent } from '../types';
import { assertionGrammar, gbnfLiteral, type AssertionGrammarDetail } from './assertionGrammar';
import { renormalise, scoreOptions } from './choiceScore';

/** How assertion lines are constrained on this server. */
export type GrammarField = 'grammar' | 'structured_outputs' | 'guided_grammar';

export interface StreamedText {
  text: string;
  finishReason: SegmentResult['finishReason'];
}

/** What the runner needs from the backend. */
export interface EndpointCalls {
  mode: ConstrainedPlanMode;
  grammarField?: GrammarField;
  /** How much of an assertion line the server's grammar describes (default: all of it). */
  grammarDetail?: AssertionGrammarDetail;
  contextWindow: number;
  /** Tokens of a text as the server counts them (estimated where it cannot say). */
  countTokens(text: string, signal: AbortSignal): Promise<number>;
  /** A non-streamed `/completions` request; the body gets the model name added. */
  complete(body: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** A streamed `/completions` request; `onText` gets each piece as it arrives. */
  stream(
    body: Record<string, unknown>,
    onText: (text: string) => void,
    signal: AbortSignal,
  ): Promise<StreamedText>;
  /** Sampling fields every request carries (temperature, top_p, top_k, seed, repetition penalty). */
  samplingFields(options: PlanOptions, seed: number | undefined): Record<string, unknown>;
}

/**
 * Top log-probabilities asked for at each choice position: the most vLLM allows by default, and
 * no dearer than one on llama-cpp-python, which sorts the whole vocabulary either way.
 */
export const TOP_LOGPROBS = 20;

export async function runEndpointPlan(
  calls: EndpointCalls,
  prompt: string,
  plan: PlanSegment[],
  options: PlanOptions,
  signal: AbortSignal,
): Promise<PlanResult> {
  const started = Date.now();
  let firstTokenAt: number | undefined;
  const n = Math.max(1, Math.floor(options.n ?? 1));
  const random = new SeededRandom(options.seed ?? randomSeed());
  const completions: PlanCompletion[] = [];
  for (let sequence = 0; sequence < n; sequence++) {
    const emit = (segment: number, text: string) => {
      if (text === '') return;
      firstTokenAt ??= Date.now();
      options.onToken?.({ sequence, segment, text } satisfies TokenEvent);
    };
    const seed = options.seed === undefined ? undefined : options.seed + sequence;
    const row = new EndpointRow(calls, prompt, options, seed, random, emit, signal);
    completions.push(await row.run(plan));
  }
  const totalMs = Date.now() - started;
  return {
    mode: calls.mode,
    completions,
    promptTokens: await calls.countTokens(prompt, signal),
    timeToFirstTokenMs: firstTokenAt !== undefined ? firstTokenAt - started : totalMs,
    totalMs,
  };
}

class EndpointRow {
  private written = '';
  private tokens = 0;

  constructor(
    private readonly calls: EndpointCalls,
    private readonly prompt: string,
    private readonly options: PlanOptions,
    private readonly seed: number | undefined,
    private readonly random: SeededRandom,
    private readonly emit: (segment: number, text: string) => void,
    private readonly signal: AbortSignal,
  ) {}

  async run(plan: PlanSegment[]): Promise<PlanCompletion> {
    const segments = await interpretPlan(plan, {
      text: (i, s) => {
        this.emit(i, s.text);
        return { kind: 'text', text: s.text };
      },
      free: (i, s) => this.free(i, s),
      choice: (i, s, next) => this.choice(i, s, next),
      assertions: (i, s) => this.assertions(i, s),
      wrote: (text) => (this.written += text),
    });
    this.tokens =
      (await this.calls.countTokens(this.prompt + this.written, this.signal)) -
      (await this.calls.countTokens(this.prompt, this.signal));
    return { text: this.written, segments, tokenCount: Math.max(0, this.tokens) };
  }

  private async room(): Promise<number> {
    return this.calls.contextWindow - (await this.calls.countTokens(this.prompt + this.written, this.signal));
  }

  private async free(i: number, s: FreeText): Promise<SegmentResult> {
    const maxTokens = Math.min(s.maxTokens, (await this.room()) - 8);
    if (maxTokens <= 0) return { kind: 'free', name: s.name, text: '', finishReason: 'length' };
    const out = await this.calls.stream(
      {
        prompt: this.prompt + this.written,
        max_tokens: maxTokens,
        ...(s.stop?.length && { stop: s.stop }),
        ...this.calls.samplingFields(this.options, this.seed),
      },
      (text) => this.emit(i, text),
      this.signal,
    );
    const finishReason = out.finishReason === 'stop' && !s.stop?.length ? 'eos' : out.finishReason;
    return { kind: 'free', name: s.name, text: out.text, finishReason };
  }

  private async choice(i: number, s: Choice, next: PlanSegment | undefined): Promise<SegmentResult> {
    // As on the local engine: a trailing space is scored with the options, and options that
    // start one another are scored with the first character of the text that follows.
    const space = this.written.endsWith(' ') ? ' ' : '';
    const point = this.prompt + this.written.slice(0, this.written.length - space.length);
    const terminator = choiceTerminator(s, next);
    const texts = s.options.map((o) => space + o + terminator);
    const k = TOP_LOGPROBS;
    const tree = await scoreOptions(texts, async (context) => {
      // min_tokens keeps the server from ending at once, where llama-cpp-python then returns no log-probabilities.
      const body = { prompt: point + context, max_tokens: 1, min_tokens: 1, temperature: 0, logprobs: k };
      return readTopLogprobs(await this.calls.complete(body, this.signal));
    });
    // An option none of whose paths is in the top-k gets, where the server has grammars, the
    // probability of the one path a grammar forcing its text takes: still a lower bound, not 0.
    const probabilities = tree.probabilities;
    if (this.calls.mode === 'server-grammar') {
      for (let j = 0; j < texts.length; j++) {
        if (probabilities[j] === 0) probabilities[j] = (await this.forcedScore(point, texts[j])) ?? 0;
      }
    }
    const { distribution, mass } = renormalise(probabilities);
    const chosen = pickOption(distribution, this.options.temperature ?? 1, this.random);
    this.emit(i, s.options[chosen]);
    return choiceResult(s, chosen, distribution, mass);
  }

  /**
   * The probability of `text` along the tokens a grammar forcing exactly that text makes the
   * server write (it reports each forced token's log-probability before the grammar applies), or
   * undefined when the answer does not bear that out.
   */
  private async forcedScore(point: string, text: string): Promise<number | undefined> {
    const grammar = `root ::= ${gbnfLiteral(text)}\n`;
    const field = this.calls.grammarField ?? 'grammar';
    const body = {
      prompt: point,
      max_tokens: text.length + 2,
      temperature: 0,
      logprobs: 1,
      ...(field === 'structured_outputs' ? { structured_outputs: { grammar } } : { [field]: grammar }),
    };
    const answer = (await this.calls.complete(body, this.signal)) as {
      choices?: { text?: unknown; logprobs?: { token_logprobs?: unknown[] } }[];
    };
    const choice = answer?.choices?.[0];
    const values = choice?.logprobs?.token_logprobs;
    if (choice?.text !== text || !Array.isArray(values) || values.length === 0) return undefined;
    if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) return undefined;
    return Math.exp((values as number[]).reduce((a, b) => a + b, 0));
  }

  private async assertions(i: number, s: AssertionLines): Promise<SegmentResult> {
    const grammar =
      this.calls.mode === 'server-grammar' ? assertionGrammar(s, this.calls.grammarDetail) : undefined;
    const field = this.calls.grammarField ?? 'grammar';
    const constraint =
      grammar === undefined
        ? { stop: ['\n\n'] }
        : field === 'structured_outputs'
          ? { structured_outputs: { grammar } }
          : { [field]: grammar };
    const maxTokens = Math.min(s.maxLines * s.maxTokensPerLine, (await this.room()) - 8);
    const out =
      maxTokens <= 0
        ? { text: '', finishReason: 'length' as const }
        : await this.calls.stream(
            {
              prompt: this.prompt + this.written,
              max_tokens: maxTokens,
              ...constraint,
              ...this.calls.samplingFields(this.options, this.seed),
            },
            () => undefined,
            this.signal,
          );
    // The same grammar as the local engine, applied to what came back: lines it rejects or that
    // repeat an earlier one are left out.
    const auto = new AssertionAutomaton(s);
    let dropped = 0;
    const raw = out.text.split('\n');
    for (let j = 0; j < raw.length && !auto.ended; j++) {
      const line = raw[j];
      const last = j === raw.length - 1;
      if (line === '') {
        if (!last && auto.lines.length > 0) auto.feed('\n');
        continue;
      }
      const outcome = auto.feed(last ? line : `${line}\n`);
      if (outcome !== 'ok' || (last && !auto.canEnd())) {
        auto.dropLine();
        dropped++;
      } else if (last) auto.end();
    }
    this.emit(i, auto.text);
    return assertionsResult(s, auto, dropped, out.finishReason === 'length' ? 'length' : 'stop');
  }
}

/** The first position's top log-probabilities in a `/completions` answer (empty when absent). */
export function readTopLogprobs(response: unknown): Map<string, number> {
  const choice = (response as { choices?: { logprobs?: { top_logprobs?: unknown[] } }[] })?.choices?.[0];
  const first = choice?.logprobs?.top_logprobs?.[0];
  const map = new Map<string, number>();
  if (first && typeof first === 'object') {
    for (const [token, lp] of Object.entries(first as Record<string, unknown>)) {
      if (typeof lp === 'number' && Number.isFinite(lp)) map.set(token, lp);
    }
  }
  return map;
}
