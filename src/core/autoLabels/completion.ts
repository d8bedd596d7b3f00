/**
 * Completion-based step labels (Math-Shepherd's "hard estimation"): a step is good when a solution
 * continued from it can still reach the reference answer. From the prefix that ends with step i,
 * sample N continuations; step i is positive when at least one reaches the answer, negative when
 * none does. Labels start where users start: with zero human labels.
 *
 * Probing every step costs N continuations per step. `first-error` search costs one probe when the
 * first step already fails and about 1 + log2(steps) otherwise, on one assumption stated here so
 * it can be checked: a prefix from which no continuation reaches the answer stays that way when it
 * grows (once broken, a chain stays broken). A solution whose own final answer is right is itself a successful continuation of each
 * of its prefixes, so under hard estimation every one of its steps is positive without sampling.
 */

export type StepSearch = 'every-step' | 'first-error';

export interface CompletionLabelOptions {
  /** Continuations sampled from each probed prefix (Math-Shepherd's N). */
  samplesPerStep: number;
  search: StepSearch;
  signal?: AbortSignal;
}

/**
 * Samples `samples` continuations of a solution's opening `prefix` (its text up to the end of a
 * step) and says, for each, whether its final answer is the reference answer.
 */
export type ContinuationProbe = (prefix: string, samples: number) => Promise<boolean[]>;

export interface StepEstimate {
  index: number;
  text: string;
  /** +1: some continuation from here reaches the answer; −1: none does. */
  rating: 1 | -1;
  /**
   * How the rating was found: sampled from this prefix; read from the solution's own final answer
   * (right: every step positive; wrong: the last step negative); or inferred (see the file comment).
   */
  evidence: 'sampled' | 'final-answer' | 'inferred';
  samples: number;
  successes: number;
}

export interface SolutionToLabel {
  /** The solution as written. */
  text: string;
  /** Its steps in order, with the offset where each ends in `text`. */
  steps: readonly { text: string; end: number }[];
  /** Whether the solution's own final answer equals the reference answer. */
  finalAnswerCorrect: boolean;
}

/**
 * Labels the steps of one solution, up to and including its first negative step (steps after the
 * first error say nothing once the chain is broken, as in PRM training data).
 */
export async function completionLabels(
  solution: SolutionToLabel,
  probe: ContinuationProbe,
  options: CompletionLabelOptions,
): Promise<StepEstimate[]> {
  const { steps } = solution;
  if (steps.length === 0) return [];
  if (!Number.isInteger(options.samplesPerStep) || options.samplesPerStep < 1)
    throw new RangeError(`samplesPerStep must be a positive integer (got ${options.samplesPerStep}).`);
  if (solution.finalAnswerCorrect)
    return steps.map((step, index) => ({
      index,
      text: step.text,
      rating: 1,
      evidence: 'final-answer',
      samples: 0,
      successes: 0,
    }));

  const probed = new Map<number, number>();
  const successesAt = async (index: number): Promise<number> => {
    const known = probed.get(index);
    if (known !== undefined) return known;
    options.signal?.throwIfAborted();
    const outcomes = await probe(solution.text.slice(0, steps[index].end), options.samplesPerStep);
    const successes = outcomes.filter(Boolean).length;
    probed.set(index, successes);
    return successes;
  };

  // The whole solution is a finished chain with a wrong answer: its last step is negative.
  let firstError = steps.length - 1;
  if (options.search === 'every-step') {
    for (let i = 0; i < steps.length - 1; i++) {
      if ((await successesAt(i)) === 0) {
        firstError = i;
        break;
      }
    }
  } else if (steps.length > 1 && (await successesAt(0)) === 0) {
    // The first step is probed first: on problems the generator rarely solves (most of them, for a
    // small model) no continuation recovers from the first step, and one probe settles the label
    // that a bisection would take log2(steps) probes to reach.
    firstError = 0;
  } else {
    // Smallest i ≥ 1 whose prefix cannot reach the answer, in [1, steps.length - 1].
    let lo = Math.min(1, steps.length - 1);
    let hi = steps.length - 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await successesAt(mid)) === 0) hi = mid;
      else lo = mid + 1;
    }
    firstError = lo;
  }

  const out: StepEstimate[] = [];
  for (let index = 0; index <= firstError; index++) {
    const successes = probed.get(index);
    const sampled = successes !== undefined;
    const last = index === steps.length - 1;
    out.push({
      index,
      text: steps[index].text,
      rating: index < firstError ? 1 : -1,
      evidence: sampled ? 'sampled' : last ? 'final-answer' : 'inferred',
      samples: sampled ? options.samplesPerStep : 0,
      successes: successes ?? 0,
    });
  }
  return out;
}
