/**
 * The judge of a practice set, constrained where the backend can: a score judgment is a short
 * bounded analysis followed by a choice among 0–10, and a pairwise verdict an analysis followed by
 * a choice of A or B. Every judgment is then readable by construction (no unreadable scores), and
 * carries the judge's probabilities: a score's expected value and spread, a verdict's P(A).
 * Without plan support the judge writes freely and the old parsers read what they can.
 */
import type { OptionProbability, PlanSegment } from '../model/plan';
import { segmentNamed } from '../model/plan';
import type { ModelBackend, ModelInput } from '../model/types';
import { parseJudgeScore, parsePairVerdict } from './judge';

export const SCORE_OPTIONS = Array.from({ length: 11 }, (_, i) => String(i));

/** One score judgment of one answer, on [0, 1] (the 0–10 score divided by 10). */
export interface ScoreJudgment {
  /** The expected score; null when a free judgment could not be read. */
  expected: number | null;
  /** The variance of the judgment's own distribution (0 for a score read from free text). */
  spread: number;
  /** The probabilities of 0…10; null for free text. */
  distribution: OptionProbability[] | null;
  constrained: boolean;
}

/** One pairwise verdict, in the order shown: the probability that answer A is the better one. */
export interface PairVerdict {
  /** P(A); 1 or 0 for a verdict read from free text, null when none could be read. */
  pA: number | null;
  constrained: boolean;
}

export interface JudgeCall {
  judge: ModelBackend;
  prompt: string;
  passes: number;
  maxTokens: number;
  constrained: boolean;
  seed?: number;
  signal?: AbortSignal;
}

export function scorePlan(analysisTokens: number): PlanSegment[] {
  return [
    { kind: 'free', name: 'analysis', maxTokens: analysisTokens, stop: ['\\boxed', 'Score:'] },
    { kind: 'text', text: '\n\nScore: \\boxed{' },
    { kind: 'choice', name: 'score', options: SCORE_OPTIONS },
    { kind: 'text', text: '}' },
  ];
}

export function pairPlan(analysisTokens: number): PlanSegment[] {
  return [
    { kind: 'free', name: 'analysis', maxTokens: analysisTokens, stop: ['\\boxed', 'The better answer is'] },
    { kind: 'text', text: '\n\nThe better answer is \\boxed{' },
    { kind: 'choice', name: 'verdict', options: ['A', 'B'] },
    { kind: 'text', text: '}' },
  ];
}

/** Expected value and variance of a 0–10 choice, on [0, 1]. */
export function scoreMoments(distribution: readonly OptionProbability[]): {
  expected: number;
  spread: number;
} {
  const mass = distribution.reduce((s, d) => s + d.probability, 0) || 1;
  let expected = 0;
  let second = 0;
  for (const d of distribution) {
    const v = Number(d.option) / 10;
    expected += (d.probability / mass) * v;
    second += (d.probability / mass) * v * v;
  }
  return { expected, spread: Math.max(0, second - expected * expected) };
}

const messages = (prompt: string): ModelInput => [{ role: 'user', content: prompt }];
const sampling = (c: JudgeCall) => ({
  n: c.passes,
  temperature: c.passes > 1 ? 0.7 : 0,
  seed: c.seed,
  signal: c.signal,
});

/** k score judgments of one answer (one batched call). */
export async function judgeScores(c: JudgeCall): Promise<ScoreJudgment[]> {
  if (c.constrained) {
    const result = await c.judge.generatePlan(messages(c.prompt), scorePlan(c.maxTokens), sampling(c));
    return result.completions.map((completion) => {
      const distribution = segmentNamed(completion, 'score')?.distribution ?? [];
      return { ...scoreMoments(distribution), distribution, constrained: true };
    });
  }
  const result = await c.judge.generate(messages(c.prompt), {
    ...sampling(c),
    maxTokens: c.maxTokens,
    logprobs: false,
  });
  return result.completions.map((completion) => ({
    expected: parseJudgeScore(completion.text),
    spread: 0,
    distribution: null,
    constrained: false,
  }));
}

/** k pairwise verdicts for one order of one pair (one batched call). */
export async function judgePair(c: JudgeCall): Promise<PairVerdict[]> {
  if (c.constrained) {
    const result = await c.judge.generatePlan(messages(c.prompt), pairPlan(c.maxTokens), sampling(c));
    return result.completions.map((completion) => {
      const d = segmentNamed(completion, 'verdict')?.distribution ?? [];
      const a = d.find((x) => x.option === 'A')?.probability ?? 0;
      const b = d.find((x) => x.option === 'B')?.probability ?? 0;
      return { pA: a + b > 0 ? a / (a + b) : 0.5, constrained: true };
    });
  }
  const result = await c.judge.generate(messages(c.prompt), {
    ...sampling(c),
    maxTokens: c.maxTokens,
    logprobs: false,
  });
  return result.completions.map((completion) => {
    const v = parsePairVerdict(completion.text);
    return { pA: v === null ? null : v === 'A' ? 1 : 0, constrained: false };
  });
}
