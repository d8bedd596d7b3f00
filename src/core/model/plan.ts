/**
 * Structured generation: a plan says what the model must write, segment by segment, so that every
 * output has the shape its reader expects by construction instead of by parsing free text.
 *
 * A backend runs a plan by constraining its decoding (masked logits on the ONNX engine; a server
 * grammar or a forced-prefix continuation on an OpenAI-compatible endpoint). A backend that cannot
 * constrain says so through `planSupport()`; callers then fall back to free generation and parsing,
 * and record that the output was unconstrained.
 */
import type { GenerateOptions, ModelInput } from './generateOptions';
import { ModelError } from './modelError';

/** Text the model does not choose: it is appended to the sequence as if generated. */
export interface ForcedText {
  kind: 'text';
  text: string;
}

/** Free text, ended by a stop string (not kept), EOS, or its token budget. */
export interface FreeText {
  kind: 'free';
  name: string;
  maxTokens: number;
  stop?: string[];
}

/**
 * One of a fixed set of options (score values, "A" / "B"). The result carries the model's
 * probability of every option given the text before it, renormalised over the options.
 *
 * An option means exactly its text: where one option is the start of another ("1" and "10",
 * "0" and "0.5"), each is scored together with the first character of the forced text that
 * follows the choice (so "1}" and "10}" compete), or, with no forced text after it, as the
 * option followed by anything but the longer option. Where the plan's text before a choice ends
 * in a space, the space is scored with each option (" A" is one token in most vocabularies).
 */
export interface Choice {
  kind: 'choice';
  name: string;
  options: string[];
}

/**
 * Test code as lines of single assertions on one function: `assert f(...) ...` or
 * `assert not f(...) ...` for Python, `assert.deepStrictEqual(f(...), ...)` /
 * `assert.strictEqual(f(...), ...)` for JavaScript and TypeScript. Brackets and strings balance
 * before a line ends; no comments, second statements, lone `=` or two operands in a row (prose).
 * At most `maxLines`; a line that repeats an earlier one is dropped (a second repeat ends the
 * segment); a line that would pass `maxTokensPerLine` is dropped and ends the segment; otherwise
 * the segment ends at a blank line or EOS. The result's `lines` are the admitted lines.
 */
export interface AssertionLines {
  kind: 'assertions';
  name: string;
  language: 'python' | 'javascript' | 'typescript';
  functionName: string;
  maxLines: number;
  maxTokensPerLine: number;
}

export type PlanSegment = ForcedText | FreeText | Choice | AssertionLines;

export interface OptionProbability {
  option: string;
  probability: number;
}

export interface SegmentResult {
  kind: PlanSegment['kind'];
  /** The segment's name (forced text has none). */
  name?: string;
  text: string;
  /** Choice segments: every option with its probability (they sum to 1). */
  distribution?: OptionProbability[];
  /**
   * Choice segments: the probability the model gave all options together before renormalising
   * (near 0: it wanted to write something else, and the distribution says little).
   */
  optionMass?: number;
  /** Assertion segments: the admitted lines, without their newlines. */
  lines?: string[];
  /** Assertion segments: lines left out (repeats of an earlier line, or one cut at its token budget). */
  dropped?: number;
  /** Free and assertion segments: why the segment ended. */
  finishReason?: 'stop' | 'eos' | 'length' | 'abort';
}

export interface PlanCompletion {
  /** The whole text the plan produced, forced text included. */
  text: string;
  segments: SegmentResult[];
  /** Tokens generated or forced. */
  tokenCount: number;
}

export interface PlanResult {
  /** How the plan was constrained (never `none`: a backend without support throws instead). */
  mode: ConstrainedPlanMode;
  completions: PlanCompletion[];
  promptTokens: number;
  /** Prompt tokens read from a cache the backend kept from an earlier request, where it says. */
  cachedPromptTokens?: number;
  timeToFirstTokenMs: number;
  totalMs: number;
}

/**
 * How a plan is constrained. `native`: the local engine masks its own logits, so every segment is
 * exactly as planned. `server-grammar`: segments are continued through the endpoint's completions
 * API and assertion lines are held to a grammar the server enforces. `prefix-continuation`: the
 * same continuation without a grammar, so assertion lines are generated freely and filtered.
 */
export type ConstrainedPlanMode = 'native' | 'server-grammar' | 'prefix-continuation';

/**
 * How a backend can run plans: where it cannot, `reason` says why in words a person can act on.
 * Endpoints answer for chat-message input (the common case), which needs the model's chat template.
 */
export type PlanSupport =
  | {
      mode: ConstrainedPlanMode;
      /** On a server with grammars: how much of a test line its grammar describes (see assertionGrammar.ts). */
      assertionGrammar?: 'expressions' | 'lines';
    }
  | { mode: 'none'; reason: string };

/** Options of a plan run: sampling as for generate(), minus what the plan itself decides. */
export type PlanOptions = Omit<GenerateOptions, 'maxTokens' | 'minTokens' | 'stop' | 'logprobs'>;

export interface PlanRunner {
  planSupport(): Promise<PlanSupport>;
  /**
   * Runs the plan `options.n` times. Throws ModelError('endpoint-unsupported') with the reason
   * where `planSupport()` says `none`, and ModelError('aborted') when cancelled.
   */
  generatePlan(input: ModelInput, plan: PlanSegment[], options?: PlanOptions): Promise<PlanResult>;
}

/** Checks a plan before any work: the errors name the segment and the rule it breaks. */
export function checkPlan(plan: PlanSegment[]): void {
  const bad = (i: number, why: string) =>
    new ModelError(`Plan segment ${i + 1} ${why}.`, 'internal', 'Fix the plan the caller builds.');
  if (plan.length === 0)
    throw new ModelError('The plan is empty.', 'internal', 'Give it at least one segment.');
  plan.forEach((s, i) => {
    if (s.kind === 'free' && !(s.maxTokens > 0)) throw bad(i, 'needs a token budget above 0');
    if (s.kind === 'choice') {
      if (s.options.length === 0) throw bad(i, 'is a choice without options');
      if (s.options.some((o) => o === '')) throw bad(i, 'has an empty option');
      if (new Set(s.options).size !== s.options.length) throw bad(i, 'repeats an option');
    }
    if (s.kind === 'assertions') {
      if (!(s.maxLines >= 1 && s.maxTokensPerLine >= 1))
        throw bad(i, 'needs maxLines and maxTokensPerLine of at least 1');
      if (!/^[A-Za-z_$][\w$.]*$/.test(s.functionName))
        throw bad(i, `names no function ("${s.functionName}")`);
    }
  });
}

/** The named segment of a completion, or undefined. */
export function segmentNamed(completion: PlanCompletion, name: string): SegmentResult | undefined {
  return completion.segments.find((s) => s.name === name);
}

/** Expected value of a numeric choice (options parsed as numbers; non-numeric ones are skipped). */
export function expectedValue(distribution: OptionProbability[]): number | undefined {
  let mass = 0;
  let sum = 0;
  for (const { option, probability } of distribution) {
    const value = Number(option);
    if (!Number.isFinite(value)) continue;
    mass += probability;
    sum += probability * value;
  }
  return mass > 0 ? sum / mass : undefined;
}

/**
 * The plan half of a backend that cannot constrain decoding (a test double, a wrapper): it says
 * why, and generatePlan refuses with the same reason.
 */
export function withoutPlans(reason: string): PlanRunner {
  return {
    async planSupport() {
      return { mode: 'none', reason };
    },
    async generatePlan() {
      throw new ModelError(
        `This model cannot run a generation plan: ${reason}`,
        'endpoint-unsupported',
        reason,
      );
    },
  };
}
