/**
 * The continuation probe of completion-based labels on a real model: from a solution's opening,
 * the generator writes the rest of the solution `samples` times (as one batch), closed by a boxed
 * final answer as the loop's solutions are, and each rest counts as a success when that answer is
 * the reference answer.
 */
import { answersEquivalent, finalBoxedAnswer } from '../math/answers';
import type { ModelBackend } from '../model/types';
import { finalAnswerLine, solutionContinuationPlan } from '../prove/generate';
import { loadPrompt, renderPrompt } from '../prove/prompts';
import type { ContinuationProbe } from './completion';

export interface ModelProbeOptions {
  generator: ModelBackend;
  problem: string;
  referenceAnswer: string;
  /** Token budget of each continuation. */
  maxTokens: number;
  /** Above 0: the samples must differ to estimate whether a step can still succeed. */
  temperature: number;
  seed?: number;
  promptDir?: string;
  signal?: AbortSignal;
}

export function modelContinuationProbe(o: ModelProbeOptions): ContinuationProbe {
  const prompt = [
    {
      role: 'user' as const,
      content: renderPrompt(loadPrompt('generator', o.promptDir), { problem: o.problem }),
    },
  ];
  let call = 0;
  return async (prefix, samples) => {
    const result = await o.generator.generatePlan(
      prompt,
      solutionContinuationPlan(prefix, o.maxTokens, true),
      {
        n: samples,
        temperature: o.temperature,
        seed: o.seed === undefined ? undefined : o.seed + call++,
        signal: o.signal,
      },
    );
    return result.completions.map((c) => {
      const rest = c.segments.find((s) => s.name === 'rest')?.text ?? '';
      const closing = finalAnswerLine(c.segments.find((s) => s.name === 'answer')?.text ?? '');
      const answer = finalBoxedAnswer(`${prefix}\n${rest}\n\n${closing}`);
      return answer !== null && answersEquivalent(answer, o.referenceAnswer);
    });
  };
}
