/**
 * Scores the steps of a solution: for each step, the probability that it is correct given the
 * problem and the steps before it. A process reward model the trainer exported implements it
 * directly (onnx/prmScorer.ts); without one, Prove's `VerifierStepScorer` asks the verifier model.
 */
export interface StepScorer {
  readonly info: { kind: 'prm' | 'verifier-logprob'; name: string };
  scoreSteps(
    problem: string,
    steps: readonly string[],
    options?: { signal?: AbortSignal },
  ): Promise<number[]>;
}
