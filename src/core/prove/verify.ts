import type { FinishReason, GenerateOptions, ModelBackend, ModelInput } from '../model/types';
import { boxedNumber, findBoxed } from './boxed';
import { stripThinking, SELF_SCORES } from './parse';

/** The grading scale a rubric prompt asks for (front matter `scale:` of the prompt file). */
export type RubricScale = 'unit' | 'olympiad';

export interface Judgment {
  /** The number in the judge's box, on the rubric's own scale. */
  rawScore: number | null;
  /** The score mapped to [0, 1]; null when the judge gave no usable score. */
  score: number | null;
  problems: string[];
}

export interface JudgePass extends Judgment {
  raw: string;
  finishReason: FinishReason;
}

/**
 * Olympiad points (0–7) to the design's 0 / 0.5 / 1 scale:
 *   7     → 1    a complete and rigorous proof;
 *   1 – 6 → 0.5  credit for a correct but imperfect or incomplete argument (the middle grade);
 *   0     → 0    no meaningful progress or a wrong argument.
 * Anything but a whole number from 0 to 7 is not a grade (null).
 */
export function olympiadToUnit(points: number): number | null {
  if (!Number.isInteger(points) || points < 0 || points > 7) return null;
  if (points === 7) return 1;
  return points === 0 ? 0 : 0.5;
}

const CLOSING = /final overall score should be:\s*(?:\$+\s*)?(\\boxed\s*\{)/g;

/** Reads a judge's verdict. Never throws: an unreadable verdict has `score: null` and says why. */
export function parseJudgment(output: string, scale: RubricScale = 'unit'): Judgment {
  const problems: string[] = [];
  const { text, problems: thinkProblems } = stripThinking(typeof output === 'string' ? output : '');
  problems.push(...thinkProblems);
  const boxes = findBoxed(text);
  if (boxes.length === 0) {
    return { rawScore: null, score: null, problems: [...problems, 'the judge gave no \\boxed{} score'] };
  }
  // The verdict is the box of the closing sentence; failing that, the last box (judges restate).
  const closing = [...text.matchAll(CLOSING)].pop();
  const closingStart = closing ? (closing.index ?? 0) + closing[0].length - closing[1].length : -1;
  const box = boxes.find((b) => b.start === closingStart) ?? boxes[boxes.length - 1];
  if (boxes.length > 1)
    problems.push(`${boxes.length} \\boxed{} values; the ${closing ? 'closing' : 'last'} one was read`);
  const rawScore = boxedNumber(box.content);
  if (rawScore === null) {
    return {
      rawScore: null,
      score: null,
      problems: [...problems, `\\boxed{${box.content.slice(0, 40)}} is not a number`],
    };
  }
  let score: number | null;
  if (scale === 'olympiad') {
    score = olympiadToUnit(rawScore);
    if (score === null) problems.push(`${rawScore} is not a whole number of points from 0 to 7`);
  } else {
    score = SELF_SCORES.find((s) => Math.abs(s - rawScore) < 1e-9) ?? null;
    if (score === null) problems.push(`${rawScore} is not one of 0, 0.5, 1`);
  }
  return { rawScore, score, problems };
}

/** Mean of the readable scores; null when no pass gave one. */
export function meanScore(passes: readonly Judgment[]): number | null {
  const scores = passes.map((p) => p.score).filter((s): s is number => s !== null);
  return scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
}

export interface JudgeOptions {
  passes: number;
  scale: RubricScale;
  maxTokens: number;
  /** Sampling temperature for k > 1 passes (a single pass is greedy so that it is repeatable). */
  temperature: number;
  seed?: number;
  signal?: AbortSignal;
  onToken?: (pass: number, text: string) => void;
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
  const generateOptions: GenerateOptions = {
    n: options.passes,
    maxTokens: options.maxTokens,
    temperature: options.passes > 1 ? options.temperature : 0,
    seed: options.seed,
    signal: options.signal,
    onToken: options.onToken && ((e) => options.onToken?.(e.sequence, e.text)),
  };
  const result = await backend.generate(prompt, generateOptions);
  return result.completions.map((c) => ({
    raw: c.text,
    finishReason: c.finishReason,
    ...parseJudgment(c.text, options.scale),
  }));
}
