import type {
  GenerateOptions,
  GenerateResult,
  ModelBackend,
  ModelInput,
  ScoreResult,
} from '../../../src/core/model/types';
import { withoutPlans } from '../../../src/core/model/plan';

/**
 * A test double for control-flow tests: answers each generate call from a script function.
 * Features are also tested on the real default model; this only pins down the logic around it.
 */
export function scriptedModel(
  reply: (prompt: string, options: GenerateOptions, call: number) => string | string[],
  name = 'scripted',
): ModelBackend & { calls: { prompt: string; options: GenerateOptions }[] } {
  const calls: { prompt: string; options: GenerateOptions }[] = [];
  const text = (input: ModelInput) =>
    typeof input === 'string' ? input : input.map((m) => m.content).join('\n');
  return {
    ...withoutPlans('a scripted test model generates free text only'),
    calls,
    info: { backend: 'onnx', name, device: 'cpu', contextWindow: 4096 },
    async generate(input, options = {}): Promise<GenerateResult> {
      options.signal?.throwIfAborted();
      const prompt = text(input);
      calls.push({ prompt, options });
      const out = reply(prompt, options, calls.length - 1);
      const texts = Array.isArray(out) ? out : Array.from({ length: options.n ?? 1 }, () => out);
      texts.forEach((t, sequence) => options.onToken?.({ sequence, text: t }));
      return {
        completions: texts.map((t) => ({
          text: t,
          tokens: [{ text: t, logprob: -1 }],
          finishReason: 'stop',
        })),
        promptTokens: prompt.length,
        timeToFirstTokenMs: 0,
        totalMs: 0,
      };
    },
    async score(): Promise<ScoreResult> {
      return { tokens: [], totalLogprob: 0 };
    },
    async dispose() {},
  };
}

/**
 * Whether a five-stage prompt (the conversation's messages joined) is the test writer's: its
 * last message, the test writer's task in prompts/code/stages.json, asks for assertion lines.
 */
export function asksForTests(prompt: string): boolean {
  return /up to \d+ (small |adversarial )?tests of [^]*holding only those lines\.$/.test(prompt);
}
