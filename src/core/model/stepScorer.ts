/**
 * Scores the steps of a solution: for each step, the probability that it is correct given the
 * problem and the steps before it. A process reward model the trainer exported implements it
 * directly (onnx/prmScorer.ts), so does the learned step head over the generator's own
 * log-probabilities (judgment/learnedStepScorer.ts); without either, Prove's `VerifierStepScorer`
 * asks the verifier model.
 */
export type StepScorerKind = 'prm' | 'step-head' | 'verifier-logprob';

export interface StepScorer {
  readonly info: { kind: StepScorerKind; name: string };
  scoreSteps(
    problem: string,
    steps: readonly string[],
    options?: { signal?: AbortSignal },
  ): Promise<number[]>;
}
