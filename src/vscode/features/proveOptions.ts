import type { StepwiseSettings } from '../settings';

/** What a command's caller (a test, a script, the walkthrough) may set instead of the settings. */
export interface ProveArgs {
  iterations?: number;
  candidates?: number;
  maxTokens?: number;
  verifierMaxTokens?: number;
}

/**
 * Prove's options from the settings: the one mapping that "Prove and Self-Verify" and "Check My
 * Proof" share, so an option means the same in both. The model's output cap bounds every free
 * segment, the verifier's and the self-evaluation's too.
 */
export function proveOptionsFromSettings(s: StepwiseSettings, given: ProveArgs = {}) {
  return {
    maxIterations: given.iterations ?? s.prove.maxIterations,
    candidates: given.candidates ?? s.prove.candidates,
    rerankBy: s.prove.rerankBy,
    stopProbability: s.prove.stopProbability,
    stepAggregate: s.prove.stepAggregate,
    verifierPasses: s.verifier.passes,
    maxTokens: given.maxTokens ?? s.model.maxOutputTokens,
    verifierMaxTokens:
      given.verifierMaxTokens ?? Math.min(s.model.maxOutputTokens, s.prove.verifierMaxTokens),
    alpha: s.rewards.alpha,
    beta: s.rewards.beta,
    constrained: s.prove.constrained,
    selfEvalMaxTokens: Math.min(s.model.maxOutputTokens, s.prove.selfEvaluationMaxTokens),
  };
}

/** The part of Prove's options that judging a written proof uses (nothing is generated). */
export function checkOptionsFromSettings(
  s: StepwiseSettings,
  given: Pick<ProveArgs, 'verifierMaxTokens'> = {},
) {
  const { rerankBy, stepAggregate, verifierPasses, verifierMaxTokens, constrained } =
    proveOptionsFromSettings(s, given);
  return { rerankBy, stepAggregate, verifierPasses, verifierMaxTokens, constrained };
}
