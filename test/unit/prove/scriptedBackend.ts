import type {
  PlanCompletion,
  PlanOptions,
  PlanResult,
  PlanSegment,
  PlanSupport,
  SegmentResult,
} from '../../../src/core/model/plan';
import {
  ModelError,
  type Completion,
  type GenerateOptions,
  type GenerateResult,
  type ModelBackend,
  type ModelInfo,
  type ModelInput,
  type ScoreResult,
} from '../../../src/core/model/types';

/** What a scripted generate call returns: one text per requested sample (repeated when short). */
export type Script = (call: { input: ModelInput; options: GenerateOptions; callIndex: number }) => string[];

/**
 * One scripted plan completion, by segment name: the text of a free or assertion segment, or the
 * option probabilities of a choice (renormalised over the options; the most likely one is written).
 */
export type PlanAnswer = Record<string, string | Record<string, number>>;

/** What a scripted generatePlan call returns: one answer per requested sample (repeated when short). */
export type PlanScript = (call: {
  input: ModelInput;
  plan: PlanSegment[];
  options: PlanOptions;
  callIndex: number;
}) => PlanAnswer[];

/**
 * A test double for ModelBackend: answers generate() from a script, streams the text token by
 * token (one word per token) through onToken and honours the AbortSignal between tokens, as a real
 * backend does. score() returns the log-probability given by `logprobOf`. With a plan script it
 * also runs generation plans by the contract of `src/core/model/plan.ts` (forced text appended,
 * free text cut at its first stop string or its budget of words, choices renormalised, assertion
 * lines capped and deduplicated); without one it reports that it cannot.
 */
export class ScriptedBackend implements ModelBackend {
  readonly info: ModelInfo = { backend: 'onnx', name: 'scripted', device: 'cpu', contextWindow: 4096 };
  readonly calls: { input: ModelInput; options: GenerateOptions }[] = [];
  readonly scoreCalls: { prompt: ModelInput; continuation: string }[] = [];
  readonly planCalls: { input: ModelInput; plan: PlanSegment[]; options: PlanOptions }[] = [];

  constructor(
    private readonly script: Script,
    private readonly logprobOf: (prompt: ModelInput, continuation: string) => number = () => Math.log(0.5),
    private readonly planScript?: PlanScript,
  ) {}

  async planSupport(): Promise<PlanSupport> {
    return this.planScript
      ? { mode: 'native' }
      : { mode: 'none', reason: 'the scripted backend was given no plan script' };
  }

  async generatePlan(input: ModelInput, plan: PlanSegment[], options: PlanOptions = {}): Promise<PlanResult> {
    if (!this.planScript) throw new ModelError('This backend cannot run plans.', 'endpoint-unsupported');
    const callIndex = this.planCalls.length;
    this.planCalls.push({ input, plan, options });
    const answers = this.planScript({ input, plan, options, callIndex });
    const completions: PlanCompletion[] = [];
    for (let seq = 0; seq < (options.n ?? 1); seq++) {
      const answer = answers[Math.min(seq, answers.length - 1)] ?? {};
      completions.push(await this.runPlanOnce(plan, answer, seq, options));
    }
    return { mode: 'native', completions, promptTokens: 10, timeToFirstTokenMs: 1, totalMs: 2 };
  }

  private async runPlanOnce(
    plan: PlanSegment[],
    answer: PlanAnswer,
    seq: number,
    options: PlanOptions,
  ): Promise<PlanCompletion> {
    let text = '';
    let tokenCount = 0;
    const segments: SegmentResult[] = [];
    const emit = async (piece: string) => {
      if (options.signal?.aborted) throw new ModelError('Generation was cancelled.', 'aborted');
      text += piece;
      tokenCount++;
      options.onToken?.({ sequence: seq, text: piece });
      await Promise.resolve();
    };
    for (const segment of plan) {
      if (segment.kind === 'text') {
        await emit(segment.text);
        segments.push({ kind: 'text', text: segment.text });
      } else if (segment.kind === 'free') {
        const given = typeof answer[segment.name] === 'string' ? (answer[segment.name] as string) : '';
        const stops = (segment.stop ?? []).map((s) => given.indexOf(s)).filter((i) => i >= 0);
        const cut = stops.length ? given.slice(0, Math.min(...stops)) : given;
        const words = cut.match(/\S+\s*|\s+/g) ?? [];
        const kept = words.slice(0, segment.maxTokens);
        for (const w of kept) await emit(w);
        const finishReason = words.length > segment.maxTokens ? 'length' : stops.length ? 'stop' : 'eos';
        segments.push({ kind: 'free', name: segment.name, text: kept.join(''), finishReason });
      } else if (segment.kind === 'choice') {
        const given = answer[segment.name];
        const weights = segment.options.map((o) => (typeof given === 'object' ? (given[o] ?? 0) : 1));
        const total = weights.reduce((a, b) => a + b, 0) || 1;
        const distribution = segment.options.map((option, i) => ({
          option,
          probability: weights[i] / total,
        }));
        const best = distribution.reduce((a, b) => (b.probability > a.probability ? b : a));
        await emit(best.option);
        segments.push({
          kind: 'choice',
          name: segment.name,
          text: best.option,
          distribution,
          optionMass: 0.9,
        });
      } else {
        const given = typeof answer[segment.name] === 'string' ? (answer[segment.name] as string) : '';
        const lines: string[] = [];
        let dropped = 0;
        for (const line of given.split('\n')) {
          if (line.trim() === '') break;
          if (lines.length === segment.maxLines) break;
          if (lines.includes(line)) dropped++;
          else lines.push(line);
        }
        const out = lines.map((l) => `${l}\n`).join('');
        if (out) await emit(out);
        segments.push({
          kind: 'assertions',
          name: segment.name,
          text: out,
          lines,
          dropped,
          finishReason: 'stop',
        });
      }
    }
    return { text, segments, tokenCount };
  }

  async generate(input: ModelInput, options: GenerateOptions = {}): Promise<GenerateResult> {
    const callIndex = this.calls.length;
    this.calls.push({ input, options });
    const n = options.n ?? 1;
    const texts = this.script({ input, options, callIndex });
    const completions: Completion[] = [];
    for (let seq = 0; seq < n; seq++) {
      const text = texts[Math.min(seq, texts.length - 1)] ?? '';
      let out = '';
      for (const piece of text.match(/\S+\s*|\s+/g) ?? []) {
        if (options.signal?.aborted) throw new ModelError('Generation was cancelled.', 'aborted');
        out += piece;
        options.onToken?.({ sequence: seq, text: piece });
        await Promise.resolve();
      }
      completions.push({ text: out, tokens: [], finishReason: 'stop' });
    }
    return { completions, promptTokens: 10, timeToFirstTokenMs: 1, totalMs: 2 };
  }

  async score(
    prompt: ModelInput,
    continuation: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ScoreResult> {
    if (options.signal?.aborted) throw new ModelError('Scoring was cancelled.', 'aborted');
    this.scoreCalls.push({ prompt, continuation });
    const lp = this.logprobOf(prompt, continuation);
    return { tokens: [{ text: continuation, logprob: lp }], totalLogprob: lp };
  }

  async dispose(): Promise<void> {}
}

/** The user message of a chat input (the prompts are single user messages). */
export function promptText(input: ModelInput): string {
  return typeof input === 'string' ? input : input.map((m) => m.content).join('\n');
}

/** The last message of a conversation (the whole prompt when it is a string): what a role is asked. */
export function lastMessage(input: ModelInput): string {
  return typeof input === 'string' ? input : (input.at(-1)?.content ?? '');
}

/** A well-formed generator output with the given proof and self-score. */
export function generatorOutput(
  proof: string,
  selfScore: string,
  analysis = 'Every step is justified.',
): string {
  return [
    '## Solution',
    proof,
    '',
    '## Self Evaluation',
    `Here is my evaluation of the solution: ${analysis}`,
    '',
    `Based on my evaluation, the final overall score should be: \\boxed{${selfScore}}`,
  ].join('\n');
}

export function judgeOutput(score: string): string {
  return `Here is my evaluation of the solution: checked.\n\nBased on my evaluation, the final overall score should be: \\boxed{${score}}`;
}
