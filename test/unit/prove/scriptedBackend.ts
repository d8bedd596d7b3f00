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
import { withoutPlans, type PlanRunner } from '../../../src/core/model/plan';

/** What a scripted generate call returns: one text per requested sample (repeated when short). */
export type Script = (call: { input: ModelInput; options: GenerateOptions; callIndex: number }) => string[];

/**
 * A test double for ModelBackend: answers generate() from a script, streams the text token by
 * token (one word per token) through onToken and honours the AbortSignal between tokens, as a real
 * backend does. score() returns the log-probability given by `logprobOf`.
 */
export class ScriptedBackend implements ModelBackend {
  readonly info: ModelInfo = { backend: 'onnx', name: 'scripted', device: 'cpu', contextWindow: 4096 };
  readonly calls: { input: ModelInput; options: GenerateOptions }[] = [];
  readonly scoreCalls: { prompt: ModelInput; continuation: string }[] = [];

  constructor(
    private readonly script: Script,
    private readonly logprobOf: (prompt: ModelInput, continuation: string) => number = () => Math.log(0.5),
  ) {}

  private readonly plans = withoutPlans('a scripted test backend generates free text only');
  readonly planSupport: PlanRunner['planSupport'] = () => this.plans.planSupport();
  readonly generatePlan: PlanRunner['generatePlan'] = (...args) => this.plans.generatePlan(...args);

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
