/**
 * Which way an endpoint can run generation plans, found once per backend with three tiny
 * requests: `/v1/completions` must answer with top log-probabilities (choices are read from
 * them); a grammar that forces an unlikely text tells whether the server enforces grammars
 * (llama.cpp's `grammar`, vLLM's `structured_outputs` / `guided_grammar`); chat messages also
 * need the model's chat template. Where something is missing the reason says what to change.
 */
import {
  checkPlan,
  type ConstrainedPlanMode,
  type PlanOptions,
  type PlanResult,
  type PlanSegment,
  type PlanSupport,
} from '../plan';
import { ModelError, type ChatMessage, type ModelInput } from '../types';
import type { AssertionGrammarDetail } from './assertionGrammar';
import { readTopLogprobs, runEndpointPlan, type EndpointCalls, type GrammarField } from './planRunner';

const PROBE_PROMPT = 'The capital of France is';
/** A text no model writes after the probe by chance: the server wrote it only if it enforced the grammar. */
const PROBE_TEXT = 'Zq7';
const PROBE_GRAMMAR = `root ::= "${PROBE_TEXT}"\n`;

type Found =
  | { mode: ConstrainedPlanMode; grammarField?: GrammarField; grammarDetail?: AssertionGrammarDetail }
  | { mode: 'none'; reason: string };

/** The assertion grammar a user asks for; `auto` picks by server (see {@link grammarDetailFor}). */
export type AssertionGrammarSetting = 'auto' | AssertionGrammarDetail;

export interface EndpointPlanDeps extends Omit<
  EndpointCalls,
  'mode' | 'grammarField' | 'grammarDetail' | 'contextWindow'
> {
  contextWindow(): number;
  assertionGrammar: AssertionGrammarSetting;
  /** Whether the server answered llama.cpp's `/props`. */
  answersProps(signal: AbortSignal): Promise<boolean>;
  /** The chat messages as prompt text, or undefined when no chat template is known. */
  renderChat(messages: ChatMessage[], signal: AbortSignal): Promise<string | undefined>;
  where(): string;
}

export class EndpointPlans {
  private found: Promise<Found> | undefined;

  constructor(private readonly deps: EndpointPlanDeps) {}

  /** For chat messages, which need the chat template; raw prompt strings need only the server's support. */
  async support(signal: AbortSignal): Promise<PlanSupport> {
    const found = await this.probe(signal);
    if (found.mode === 'none') return found;
    if ((await this.deps.renderChat([{ role: 'user', content: 'x' }], signal)) === undefined) {
      return { mode: 'none', reason: noTemplate };
    }
    return found.grammarDetail
      ? { mode: found.mode, assertionGrammar: found.grammarDetail }
      : { mode: found.mode };
  }

  async run(
    input: ModelInput,
    plan: PlanSegment[],
    options: PlanOptions,
    signal: AbortSignal,
  ): Promise<PlanResult> {
    checkPlan(plan);
    const found = await this.probe(signal);
    if (found.mode === 'none') {
      throw new ModelError(
        `${this.deps.where()} cannot run a generation plan: ${found.reason}`,
        'endpoint-unsupported',
        found.reason,
      );
    }
    const prompt = typeof input === 'string' ? input : await this.deps.renderChat(input, signal);
    if (prompt === undefined)
      throw new ModelError(
        `${this.deps.where()} cannot run a generation plan: ${noTemplate}`,
        'endpoint-unsupported',
        noTemplate,
      );
    const calls: EndpointCalls = { ...this.deps, ...found, contextWindow: this.deps.contextWindow() };
    return runEndpointPlan(calls, prompt, plan, options, signal);
  }

  private probe(signal: AbortSignal): Promise<Found> {
    this.found ??= this.detect(signal).catch((err: unknown) => {
      // A probe cut short (cancelled, unreachable) is tried again next time.
      this.found = undefined;
      throw err;
    });
    return this.found;
  }

  private async detect(signal: AbortSignal): Promise<Found> {
    let answer: unknown;
    try {
      answer = await this.deps.complete(
        { prompt: PROBE_PROMPT, max_tokens: 1, temperature: 0, logprobs: 5 },
        signal,
      );
    } catch (err) {
      if (err instanceof ModelError && ['endpoint-unsupported', 'endpoint-not-found'].includes(err.code)) {
        return {
          mode: 'none',
          reason: `its /v1/completions does not work (${err.message}), and plans continue a forced prefix through it. Use a server that offers /v1/completions (llama.cpp, llama-cpp-python, vLLM), or the local ONNX model.`,
        };
      }
      throw err;
    }
    if (readTopLogprobs(answer).size < 2) {
      return {
        mode: 'none',
        reason:
          'its /v1/completions returns no top log-probabilities, which the probabilities of a choice (a score) are read from. Use a server that returns `logprobs` (llama.cpp, llama-cpp-python, vLLM), or the local ONNX model.',
      };
    }
    for (const field of ['grammar', 'structured_outputs', 'guided_grammar'] as const) {
      const constraint =
        field === 'structured_outputs'
          ? { structured_outputs: { grammar: PROBE_GRAMMAR } }
          : { [field]: PROBE_GRAMMAR };
      try {
        const r = await this.deps.complete(
          { prompt: PROBE_PROMPT, max_tokens: 4, temperature: 0, ...constraint },
          signal,
        );
        const text = (r as { choices?: { text?: unknown }[] })?.choices?.[0]?.text;
        if (typeof text === 'string' && text.trim() === PROBE_TEXT) {
          const grammarDetail = grammarDetailFor(
            this.deps.assertionGrammar,
            field,
            field === 'grammar' && (await this.deps.answersProps(signal)),
          );
          return { mode: 'server-grammar', grammarField: field, grammarDetail };
        }
      } catch (err) {
        // A server that refuses the field outright has no such grammar support; anything else is a real failure.
        if (!(err instanceof ModelError && err.code === 'endpoint-unsupported')) throw err;
      }
    }
    return { mode: 'prefix-continuation' };
  }
}

/**
 * The assertion grammar to send. Unasked, the full expression grammar goes to servers that check a
 * grammar cheaply (vLLM's fields, llama.cpp's server, known by its `/props`), and the line grammar
 * to any other server taking `grammar`, such as llama-cpp-python, which checks every token of the
 * vocabulary against it at each step.
 */
export function grammarDetailFor(
  setting: AssertionGrammarSetting,
  field: GrammarField,
  answersProps: boolean,
): AssertionGrammarDetail {
  if (setting !== 'auto') return setting;
  return field !== 'grammar' || answersProps ? 'expressions' : 'lines';
}

const noTemplate =
  "chat messages must be turned into prompt text with the model's chat template, and this server does not expose it (llama.cpp's server does, at /props). Give the model's tokenizer folder (the Hugging Face folder with tokenizer_config.json): stepwise.model.openai.tokenizerPath in the editor, --tokenizer DIR on the command line.";
