/**
 * Training and measuring the learned step head on labelled solutions in any label file
 * `stepwise eval prm` reads: problems are split by a stable hash (split.ts); the head — features,
 * penalty and threshold — is fitted on the fit side only, and the held-out side is scored with
 * the same metrics as `stepwise eval prm` (step AUROC, first-error accuracy), beside what each
 * feature reaches alone there.
 */
import {
  prmItemResult,
  summarizePrm,
  type LabelledSteps,
  type PrmItemResult,
  type PrmMetrics,
} from './prmEval';
import { roc, type RocSummary } from '../math/stats';
import { splitOf } from '../judgment/split';
import { STEP_FEATURES, type StepFeatureName, type StepFeatures } from '../judgment/stepFeatures';
import {
  bestThreshold,
  fitStepHead,
  outOfFoldStepScores,
  stepHeadScore,
  type StepHead,
  type StepSample,
  type ThresholdCriterion,
} from '../judgment/stepHead';

export interface LearnedStepsResult {
  head: StepHead;
  split: { fit: SideCount; heldOut: SideCount };
  /** The head on the held-out problems, at its own threshold. */
  heldOut: PrmMetrics;
  /**
   * The same head at the threshold each rule chooses out of fold on the fit side, and how each
   * measures held out: the rules differ only in the threshold, so the step AUROC is the same.
   */
  thresholdRules: Record<ThresholdCriterion, ThresholdRuleResult>;
  /** Each feature alone on the held-out steps, oriented as the fit side says (higher = not wrong). */
  featureAlone: Record<StepFeatureName, { sign: 1 | -1; stepRoc: RocSummary }>;
}

export interface ThresholdRuleResult {
  threshold: number;
  /** Out of fold on the fit side, where the threshold was chosen. */
  fit: { firstError: number; f1: number };
  heldOut: PrmMetrics['firstError'];
}

interface SideCount {
  problems: number;
  solutions: number;
  steps: number;
  wrongSteps: number;
}

export function trainLearnedSteps(
  solutions: readonly { solution: LabelledSteps; features: StepFeatures[] }[],
  options: { model: string; source?: Record<string, unknown>; thresholdBy?: ThresholdCriterion },
): LearnedStepsResult {
  const fit = solutions.filter((s) => splitOf(s.solution.problem) === 'fit');
  const heldOut = solutions.filter((s) => splitOf(s.solution.problem) === 'held-out');
  if (!fit.length || !heldOut.length)
    throw new Error(
      `the split left ${fit.length} solution(s) to fit and ${heldOut.length} to hold out: give more labelled problems.`,
    );
  const samples = fit.flatMap(toSamples);
  if (!samples.some((s) => s.wrong) || samples.every((s) => s.wrong))
    throw new Error('the fit side needs steps labelled wrong and steps not labelled wrong.');
  const head = fitStepHead(samples, {
    model: options.model,
    source: options.source,
    thresholdBy: options.thresholdBy,
  });
  const heldOutAt = (threshold: number): PrmMetrics => {
    const items: PrmItemResult[] = heldOut.map(({ solution, features }) =>
      prmItemResult(
        solution,
        features.map((f) => stepHeadScore(head, f)),
        threshold,
      ),
    );
    return summarizePrm(items, threshold);
  };
  const metrics = heldOutAt(head.threshold);
  // Both rules on the same out-of-fold scores the head's own threshold came from, so that the
  // report can set the shipped rule beside the other without choosing anything on held-out items.
  const oof = outOfFoldStepScores(samples, head.features, head.l2);
  const thresholdRules = Object.fromEntries(
    (['processbench-f1', 'first-error'] as const).map((rule) => {
      const chosen = bestThreshold(samples, oof, rule);
      return [
        rule,
        {
          threshold: chosen.threshold,
          fit: { firstError: chosen.firstError, f1: chosen.f1 },
          heldOut: heldOutAt(chosen.threshold).firstError,
        },
      ];
    }),
  ) as LearnedStepsResult['thresholdRules'];
  const heldOutSide = count(heldOut);
  // The head carries its own held-out figures, so the editor can say how far to trust its scores.
  head.heldOut = {
    problems: heldOutSide.problems,
    solutions: heldOutSide.solutions,
    steps: heldOutSide.steps,
    stepAuroc: metrics.stepRoc.auroc,
    firstErrorAccuracy: metrics.firstError.accuracy.value,
    processBenchF1: metrics.firstError.f1,
  };
  const heldOutSamples = heldOut.flatMap(toSamples);
  const featureAlone = Object.fromEntries(
    STEP_FEATURES.map((name) => {
      const sign = orientation(samples, name);
      const points = heldOutSamples.map((s) => ({ score: sign * s.features[name], correct: !s.wrong }));
      return [name, { sign, stepRoc: withoutCurve(roc(points)) }];
    }),
  ) as LearnedStepsResult['featureAlone'];
  return {
    head,
    split: { fit: count(fit), heldOut: heldOutSide },
    heldOut: metrics,
    thresholdRules,
    featureAlone,
  };
}

function toSamples({
  solution,
  features,
}: {
  solution: LabelledSteps;
  features: StepFeatures[];
}): StepSample[] {
  return solution.steps.map((s, index) => ({
    problem: solution.problem,
    solution: solution.id,
    index,
    features: features[index],
    wrong: s.rating === -1,
  }));
}

/** +1 when larger values go with steps not labelled wrong on the fit side, else −1. */
function orientation(samples: readonly StepSample[], name: StepFeatureName): 1 | -1 {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const ok = mean(samples.filter((s) => !s.wrong).map((s) => s.features[name]));
  const bad = mean(samples.filter((s) => s.wrong).map((s) => s.features[name]));
  return ok >= bad ? 1 : -1;
}

function withoutCurve(r: RocSummary): RocSummary {
  return { ...r, curve: [] };
}

function count(side: readonly { solution: LabelledSteps }[]): SideCount {
  return {
    problems: new Set(side.map((s) => s.solution.problem)).size,
    solutions: side.length,
    steps: side.reduce((a, s) => a + s.solution.steps.length, 0),
    wrongSteps: side.reduce((a, s) => a + s.solution.steps.filter((x) => x.rating === -1).length, 0),
  };
}
