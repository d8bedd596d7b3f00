/**
 * Structured generation: a plan says what the model must write, segment by segment, so that every
 * output has the shape its reader expects by construction instead of by parsing free text.
 *
 * A backend runs a plan by constraining its decoding (masked logits on the ONNX engine; a server
 * grammar or a forced-prefix continuation on an OpenAI-compatible endpoint). A backend that cannot
 * constrain says so through `planSupport()`; callers then fall back to free generation and parsing,
 * and record that the output was unconstrained.
 */
import type { GenerateOptions, ModelInput } from './types';

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
 */
export interface Choice {
  kind: 'choice';
  name: string;
  options: string[];
}

/**
 * Test code as lines of single assertions on one function: `assert f(...) == ...` for Python,
 * `assert.deepStrictEqual(f(...), ...)` / `assert.strictEqual(f(...), ...)` for JavaScript and
 * TypeScript. At most `maxLines`, no line repeated; the segment ends at a blank line, EOS or
 * the budget.
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
  completions: PlanCompletion[];
  promptTokens: number;
  timeToFirstTokenMs: number;
  totalMs: number;
}

/** How a backend can run plans: where it cannot, `reason` says why in words a person can act on. */
export type PlanSupport =
  | { mode: 'native' | 'server-grammar' | 'prefix-continuation' }
  | { mode: 'none'; reason: string };

/** Options of a plan run: sampling as for generate(), minus what the plan itself decides. */
export type PlanOptions = Omit<GenerateOptions, 'maxTokens' | 'minTokens' | 'stop' | 'logprobs'>;

export interface PlanRunner {
  planSupport(): Promise<PlanSupport>;
  generatePlan(input: ModelInput, plan: PlanSegment[], options?: PlanOptions): Promise<PlanResult>;
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
