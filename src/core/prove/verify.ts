import type { PlanCompletion, PlanSegment } from '../model/plan';
import { segmentNamed } from '../model/plan';
import type { FinishReason, GenerateOptions, ModelBackend, ModelInput } from '../model/types';
import { fromChoice, pointMass } from './distribution';
import { stripThinking } from './parse';
import type { ScoreDistribution } from './runSchema';
import {
  ANALYSIS_STOPS,
  CLOSING_SENTENCE,
  MIN_REASON_WORDS,
  reasonWords,
  readScore,
  scaleOptions,
  type ScoreScale,
} from './score';

export { olympiadToUnit } from './score';

/** The grading scale a rubric prompt asks for (front matter `scale:` of the prompt file). */
export type RubricScale = ScoreScale;

export interface Judgment {
  /** The number in the judge's box, on the rubric's own scale. */
  rawScore: number | null;
  /** The expected score on [0, 1]; null when the judge gave no usable score. */
  score: number | null;
  problems: string[];
}

export interface JudgePass extends Judgment {
  raw: string;
  finishReason: FinishReason;
  distribution: ScoreDistribution | null;
  constrained: boolean;
  withoutReasons: boolean;
}

/** Reads a judge's free-text verdict. Never throws: an unreadable verdict has `score: null` and says why. */
export function parseJudgment(output: string, scale: RubricScale = 'unit'): Judgment & { reasons: string } {
  const { text, problems } = stripThinking(typeof output === 'string' ? output : '');
  const reading = readScore(text, scale);
  return {
    rawScore: reading.rawScore,
    score: reading.score,
    reasons: reading.reasons,
    problems: [...problems, ...reading.problems],
  };
}

/** Mean of the readable scores; null when no pass gave one. */
export function meanScore(passes: readonly Judgment[]): number | null {
  const scores = passes.map((p) => p.score).filter((s): s is number => s !== null);
  return scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
}

export interface JudgeOptions {
  passes: number;
  scale: RubricScale;
  /** The analysis budget (constrained) or the whole output's (free). */
  maxTokens: number;
  /** Sampling temperature for k > 1 passes (a single pass is greedy so that it is repeatable). */
  temperature: number;
  seed?: number;
  signal?: AbortSignal;
  onToken?: (pass: number, text: string) => void;
  /** Run each verdict as a plan: analysis first, then a choice among the scale's values. */
  constrained?: boolean;
  /** The sentence the judge's analysis starts with: the prompt asks for it, a plan forces it. */
  opening?: string;
}

/**
 * The judge's answer as a plan: the opening sentence, a bounded analysis, the closing sentence and
 * the verdict as a choice among the scale's values. The analysis always comes first, so no verdict
 * can skip its reasons by construction; an analysis that is empty anyway is flagged.
 */
export function judgePlan(opening: string, analysisTokens: number, scale: RubricScale): PlanSegment[] {
  return [
    // The model writes the space after the opening: a forced lone space would push it onto rarer
    // space-less tokens for its first word.
    { kind: 'text', text: opening },
    {
      kind: 'free',
      name: 'analysis',
      maxTokens: analysisTokens,
      stop: ANALYSIS_STOPS,
    },
    { kind: 'text', text: `\n\n${CLOSING_SENTENCE} \\boxed{` },
    { kind: 'choice', name: 'score', options: scaleOptions(scale) },
    { kind: 'text', text: '}' },
  ];
}

/** A constrained verdict read from its plan completion: the score is the choice's distribution. */
export function judgePassFromPlan(c: PlanCompletion, scale: RubricScale, analysisTokens: number): JudgePass {
  const analysis = segmentNamed(c, 'analysis');
  const choice = segmentNamed(c, 'score');
  const problems: string[] = [];
  const distribution = choice
    ? fromChoice(choice.distribution ?? [], choice.text, scale, choice.optionMass)
    : null;
  if (!distribution) problems.push('the plan returned no score choice');
  const finishReason = analysis?.finishReason ?? 'stop';
  if (finishReason === 'length')
    problems.push(`the analysis reached its budget of ${analysisTokens} tokens before the verdict`);
  const withoutReasons = reasonWords(analysis?.text ?? '') < MIN_REASON_WORDS;
  if (withoutReasons) problems.push('the verdict came without reasons');
  const raw = choice ? Number(choice.text) : NaN;
  return {
    raw: c.text,
    finishReason,
    rawScore: Number.isFinite(raw) ? raw : null,
    score: distribution?.expected ?? null,
    distribution,
    constrained: true,
    withoutReasons,
    problems,
  };
}

/**
 * Runs k judge passes over one prompt as one batched generation (n = k) and reads each verdict.
 * Used for both the verifier (is the proof right?) and the meta-verifier (are the issues the
 * self-evaluation names real?).
 */
export async function runJudge(
  backend: ModelBackend,
  prompt: ModelInput,
  options: JudgeOptions,
): Promise<JudgePass[]> {
  const sampling = {
    n: options.passes,
    temperature: options.passes > 1 ? options.temperature : 0,
    seed: options.seed,
    signal: options.signal,
    onToken:
      options.onToken && ((e: { sequence: number; text: string }) => options.onToken?.(e.sequence, e.text)),
  };
  const opening = options.opening ?? 'Here is my evaluation of the solution:';
  if (options.constrained) {
    const plan = judgePlan(opening, options.maxTokens, options.scale);
    const result = await backend.generatePlan(prompt, plan, sampling);
    return result.completions.map((c) => judgePassFromPlan(c, options.scale, options.maxTokens));
  }
  const generateOptions: GenerateOptions = { ...sampling, maxTokens: options.maxTokens, logprobs: false };
  const result = await backend.generate(prompt, generateOptions);
  return result.completions.map((c) => {
    const { reasons, ...judgment } = parseJudgment(c.text, options.scale);
    const withoutReasons = reasonWords(reasons, opening) < MIN_REASON_WORDS;
    return {
      raw: c.text,
      finishReason: c.finishReason,
      ...judgment,
      problems: withoutReasons
        ? [...judgment.problems, 'the verdict came without reasons']
        : judgment.problems,
      distribution: judgment.rawScore === null ? null : pointMass(judgment.rawScore, options.scale),
      constrained: false,
      withoutReasons,
    };
  });
}
