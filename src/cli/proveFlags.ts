/**
 * Prove's options from `stepwise prove` and `stepwise check` flags: the one mapping both commands
 * use, so a flag means the same in each. Absent flags stay undefined and take the core's defaults
 * (ProveOptionsSchema), which the settings' defaults come from too.
 */
import type { ProveOptionsInput } from '../core/prove/prove';
import { fractionFlag, oneOf, wholeFlag } from './flags';

type Flags = Record<string, string | boolean | undefined>;
const text = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

/**
 * The judging flags: --verifier-passes, --no-meta and --no-step-scores. `noStepScorer`: nothing can
 * score steps (an endpoint alone), so they are off whatever the flags say.
 */
export function judgeFlagOptions(values: Flags, noStepScorer: boolean): ProveOptionsInput {
  return {
    verifierPasses: wholeFlag(text(values['verifier-passes']), 'verifier-passes', 1),
    metaVerify: values['no-meta'] ? false : undefined,
    stepScores: values['no-step-scores'] || noStepScorer ? false : undefined,
  };
}

/** Every Prove flag; `temperature` is read by the caller, which checks it before anything else. */
export function proveFlagOptions(
  values: Flags,
  o: { noStepScorer: boolean; temperature: number | undefined },
): ProveOptionsInput {
  return {
    maxIterations: wholeFlag(text(values.iterations), 'iterations', 1),
    candidates: wholeFlag(text(values.candidates), 'candidates', 1),
    rerankBy: oneOf(text(values['rerank-by']), 'rerank-by', [
      'p-correct',
      'prm',
      'verifier',
      'self',
    ] as const),
    stopProbability:
      values['stop-probability'] === undefined
        ? undefined
        : fractionFlag(text(values['stop-probability']), 'stop-probability', 1, 1),
    rubric: oneOf(text(values.rubric), 'rubric', ['unit', 'olympiad'] as const),
    ...judgeFlagOptions(values, o.noStepScorer),
    stepAggregate: oneOf(text(values.aggregate), 'aggregate', ['product', 'min'] as const),
    maxTokens: wholeFlag(text(values['max-tokens']), 'max-tokens', 16),
    temperature: o.temperature,
    seed: wholeFlag(text(values.seed), 'seed', 0),
    promptDir: text(values['prompts-dir']),
    constrained: values.free ? false : undefined,
    selfEvalMaxTokens: wholeFlag(text(values['self-eval-max-tokens']), 'self-eval-max-tokens', 16),
  };
}
