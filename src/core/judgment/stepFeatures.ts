/**
 * How surprised the generator was by each step of a solution, from one teacher-forced pass of
 * (problem prompt + solution): the per-token log-probabilities are cut at the steps' ends and
 * pooled per step. A changed number or operator in a step should make its tokens unlikely.
 *
 * Every feature of step i reads only the tokens of steps 0…i (the model is causal, and so are
 * the features): a step's score cannot depend on what comes after it, so a solution cut at its
 * first wrong step and the same solution written out in full score their shared steps alike.
 */
import type { GeneratedToken } from '../model/types';
import { flooredLogprob, lowQuantile, mean } from './confidence';

export const STEP_FEATURES = [
  /** The least likely token of the step. */
  'minLogprob',
  /** Mean log-probability of the step's tokens. */
  'meanLogprob',
  /** The step's 10th-percentile token. */
  'lowLogprob',
  /** Tokens of the step below 1 % probability. */
  'rareCount',
  /** The least likely token holding a digit (0 when the step has none): where changed numbers are. */
  'numberMinLogprob',
  /** The step's minimum and mean against the mean of the solution so far (its own baseline). */
  'minVsSoFar',
  'meanVsSoFar',
  /** ln(1 + step index): later steps of a small model drift. */
  'logPosition',
  /** ln(1 + tokens in the step). */
  'logTokens',
] as const;
export type StepFeatureName = (typeof STEP_FEATURES)[number];
export type StepFeatures = Record<StepFeatureName, number>;

const RARE = Math.log(0.01);

/** The text a step scorer scores: the steps one per line, as the splitter reads them back. */
export function joinSteps(steps: readonly string[]): string {
  return steps.join('\n');
}

/**
 * Per-step features of `tokens`, the scored tokens of `joinSteps(steps)`. A token belongs to the
 * step its first character falls in (the joining newline to the step before); tokens without a
 * log-probability are left out.
 */
export function stepFeatures(tokens: readonly GeneratedToken[], steps: readonly string[]): StepFeatures[] {
  const ends: number[] = [];
  let at = 0;
  for (const s of steps) {
    at += s.length;
    ends.push(at);
    at += 1;
  }
  const perStep: { lp: number; digit: boolean }[][] = steps.map(() => []);
  let offset = 0;
  let step = 0;
  for (const t of tokens) {
    while (step < steps.length - 1 && offset >= ends[step]) step++;
    offset += t.text.length;
    const lp = flooredLogprob(t);
    if (lp === null) continue;
    perStep[step]?.push({ lp, digit: /\d/.test(t.text) });
  }
  let soFarSum = 0;
  let soFarCount = 0;
  return perStep.map((toks, i) => {
    const lps = toks.map((t) => t.lp);
    soFarSum += lps.reduce((a, b) => a + b, 0);
    soFarCount += lps.length;
    const soFar = soFarCount ? soFarSum / soFarCount : 0;
    const sorted = [...lps].sort((a, b) => a - b);
    const min = sorted.length ? sorted[0] : 0;
    const average = mean(lps);
    const digits = toks.filter((t) => t.digit).map((t) => t.lp);
    return {
      minLogprob: min,
      meanLogprob: average,
      lowLogprob: lowQuantile(sorted),
      rareCount: lps.filter((lp) => lp < RARE).length,
      numberMinLogprob: digits.length ? Math.min(...digits) : 0,
      minVsSoFar: min - soFar,
      meanVsSoFar: average - soFar,
      logPosition: Math.log1p(i),
      logTokens: Math.log1p(lps.length),
    };
  });
}
