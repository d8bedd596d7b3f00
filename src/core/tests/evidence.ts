/**
 * Evidence before blame: whether a generated test may say "your function fails" (dual execution
 * agreement, as in CodeT). Every admitted test runs against several independently generated
 * implementations; implementations with identical pass/fail vectors form a consensus set, scored
 * |implementations in the set| × |tests the set passes|. A test's confidence is the share of the
 * total consensus score held by the sets that pass it: high when the best-supported behaviour and
 * many implementations agree with the test, low when the test stands alone. A test the user's
 * function fails is a confirmed failure only at or above the threshold; below it, it is an
 * expectation for a person to review, never a red mark on the user's code.
 */
import type { TestStatus as VerdictStatus } from '../sandbox/types';

/** How a test is shown against the user's function. */
export type UserVerdict = 'passes' | 'fails-confirmed' | 'unconfirmed' | 'flaky' | 'broken';

export interface TestEvidence {
  /** Implementations that pass this test, of all sampled (the stage-5 code included). */
  implementationsPassing: number;
  implementations: number;
  /** The highest-scoring consensus set that passes the test; absent when none does. */
  bestSet?: { implementations: number; testsPassed: number };
  /** Share of the total consensus score held by the sets that pass the test, 0–1. */
  confidence: number;
  /** Implementations set aside because they fail an example of the specification (specExamples.ts). */
  setAside?: number;
  /**
   * The exception the user's function raised on this test's input, when no docstring example passes
   * an input shaped like it (preconditions.ts): the input may lie outside what the function
   * accepts, so the failure is not confirmed however many implementations return a value.
   */
  outsideExamples?: string;
  /**
   * The user's function returned another value on this test's input, which is shaped unlike every
   * example of a docstring that has examples (outsideExamplesRule): what it should return there
   * is not specified, so the failure is not confirmed however many implementations agree.
   */
  valueOutsideExamples?: boolean;
}

export interface ConsensusSet {
  /** Indices of the implementations with this pass/fail vector. */
  members: number[];
  /** Indices of the tests they all pass. */
  passes: number[];
  score: number;
}

/** Fitted on a HumanEval training slice (bench/results/test-verdicts.json, docs/test-verdicts.md). */
export const DEFAULT_CONFIRM_THRESHOLD = 0.727;
/**
 * A failure is confirmed only when at least this many counted implementations pass the test: one
 * implementation agreeing with a test is that sample's reading of the task, not evidence against
 * the user's (on MBPP/515 the lone implementation left after two were set aside confirmed a wrong
 * test). The consensus score alone cannot see this: a lone set holds the whole score.
 */
export const MIN_AGREEING_IMPLEMENTATIONS = 2;
/**
 * Whether the implementations set aside for failing the specification's examples outnumber those
 * left: most samples misread this task, so the few left agreeing is weak evidence (they often share
 * one misreading the examples happen not to catch, and a repaired sample was shown the example it
 * passes). Such a consensus cannot confirm a failure. On held-out MBPP/541 (`check_abundant`) two
 * identical implementations, against three set aside, confirmed `check_abundant(28) == True`
 * against a correct function; every repaired consensus so far confirmed with 2 of 5 counted.
 */
export const mostSetAside = (e: Pick<TestEvidence, 'implementations' | 'setAside'>): boolean =>
  (e.setAside ?? 0) > e.implementations;
/**
 * Whether a failure lies on an input the docstring's examples leave unspecified, where agreeing
 * implementations show only what the model guessed there (preconditions.ts says which inputs an
 * example covers). A raise on such an input may be a precondition the function states; another
 * value on it may be the function's own convention for a case the task leaves open: MBPP's
 * `count_digits` counts 0 digits for a sum of 0 and `max_sub_array_sum` returns 0 for an
 * all-negative array, where every sample wrote `len(str(n))` and the largest element. Values are
 * held to this only when the docstring has examples: without any, every input is unlike them and
 * agreement is the only evidence there is. `valuesMayConfirm`: the rule before values were held to
 * it (raises only), for replays that compare the two.
 */
export function outsideExamplesRule(
  failure: { raised?: boolean; covered?: boolean },
  hasExamples: boolean,
  valuesMayConfirm = false,
): boolean {
  if (failure.covered !== false) return false;
  return !!failure.raised || (hasExamples && !valuesMayConfirm);
}

/** Independently sampled implementations besides the stage-5 code (default kept small for time). */
export const DEFAULT_EVIDENCE_SAMPLES = 2;

const passed = (s: VerdictStatus | undefined) => s === 'passed';

/** Groups implementations by identical pass vectors; `matrix[k][t]` is implementation k on test t. */
export function consensusSets(matrix: readonly (readonly VerdictStatus[])[]): ConsensusSet[] {
  const groups = new Map<string, ConsensusSet>();
  matrix.forEach((row, k) => {
    const passes = row.flatMap((s, t) => (passed(s) ? [t] : []));
    const key = passes.join(',');
    const group = groups.get(key);
    if (group) group.members.push(k);
    else groups.set(key, { members: [k], passes, score: 0 });
  });
  const sets = [...groups.values()];
  for (const s of sets) s.score = s.members.length * s.passes.length;
  return sets.sort((a, b) => b.score - a.score);
}

/**
 * Which implementations may count as evidence: those that pass every usable example of the
 * specification (`examples[k][e]` is implementation k on example e). An example is usable when the
 * user's function or some implementation passes it; one that nothing passes was probably read
 * wrongly from the docstring and decides nothing. Without examples every implementation counts.
 */
export function agreesWithExamples(
  examples: readonly (readonly VerdictStatus[])[],
  onUser: readonly VerdictStatus[],
): boolean[] {
  const usable = onUser.map((s, e) => passed(s) || examples.some((row) => passed(row[e])));
  return examples.map((row) => usable.every((use, e) => !use || passed(row[e])));
}

/**
 * Evidence for every test from the implementations' verdicts (`matrix[k][t]`). With `counts`,
 * only the implementations it marks are evidence (agreesWithExamples); the others are set aside:
 * a consensus of samples that share one misreading of the task must not blame the user.
 */
export function testEvidence(
  allRows: readonly (readonly VerdictStatus[])[],
  tests: number,
  counts?: readonly boolean[],
): TestEvidence[] {
  const matrix = counts ? allRows.filter((_, k) => counts[k]) : allRows;
  const setAside = allRows.length - matrix.length;
  const sets = consensusSets(matrix);
  const total = sets.reduce((n, s) => n + s.score, 0);
  return Array.from({ length: tests }, (_, t) => {
    const supporting = sets.filter((s) => s.passes.includes(t));
    const best = supporting[0];
    const held = supporting.reduce((n, s) => n + s.score, 0);
    return {
      implementationsPassing: matrix.filter((row) => passed(row[t])).length,
      implementations: matrix.length,
      ...(best ? { bestSet: { implementations: best.members.length, testsPassed: best.passes.length } } : {}),
      confidence: total === 0 ? 0 : held / total,
      ...(setAside ? { setAside } : {}),
    };
  });
}

/**
 * Whether the user's function failing an example of its own docstring is a confirmed failure. The
 * example is the user's own words, so no generated implementation has to back it, but only a plain
 * failure counts: the expected value evaluated and the function returned something else or raised
 * ('failed'). A misread example mostly breaks on its own expected side ('error') and is then not
 * held against the function; an expected value with a doctest ellipsis (`[1, ...]`) would compare
 * with Python's Ellipsis, so an example line holding `...` is never held against it either.
 */
export function exampleConfirms(onUser: VerdictStatus | undefined, example: string): boolean {
  return onUser === 'failed' && !example.includes('...');
}

/** A docstring example's state in the Test Explorer (and so in the gutter), with its message. */
export interface ExampleOutcome {
  line: string;
  outcome: 'passed' | 'failed' | 'errored' | 'skipped';
  message: string;
}

/**
 * How the Test Explorer shows one example of the function's own docstring that ran on the user's
 * function with `status`. A plain failure is a failure whatever the implementations say: the
 * docstring is the user's own evidence (exampleConfirms, the same rule as the panel and the CLI).
 * An example that breaks on its own expected side, or holds a doctest ellipsis, was probably read
 * wrongly and is not held against the function: skipped, with that reason, never a red mark.
 * `implementations` ([passing, of]) adds what the generated implementations did on it.
 */
export function exampleOutcome(
  line: string,
  status: string,
  output = '',
  implementations?: [number, number],
): ExampleOutcome {
  const impl = implementations
    ? ` ${implementations[0]} of ${implementations[1]} generated implementation${implementations[1] === 1 ? '' : 's'} pass it.`
    : '';
  const detail = output ? `\n${output}` : '';
  if (status === 'passed') return { line, outcome: 'passed', message: `Passes: ${line}` };
  if (exampleConfirms(status as VerdictStatus, line))
    return {
      line,
      outcome: 'failed',
      message: `Your function fails this example of its own docstring: ${line}. The docstring is the evidence; no generated implementation has to back it.${impl}${detail}`,
    };
  if (status === 'flaky')
    return {
      line,
      outcome: 'errored',
      message: `Flaky: the example passed and failed on two runs: ${line}${detail}`,
    };
  const why = line.includes('...')
    ? 'it holds a doctest ellipsis, which Python would compare with Ellipsis'
    : `it did not run as a plain comparison (${status}): its expected value was probably read wrongly from the docstring`;
  return {
    line,
    outcome: 'skipped',
    message: `Not held against your function: ${why}.${impl}${detail}`,
  };
}

/** The Test Explorer's outcome of every docstring example of a run (none when the suite did not run). */
export function exampleOutcomes(
  examples:
    | {
        tests: string[];
        onUser: string[];
        onImplementations?: string[][];
        userOutput?: (string | undefined)[];
      }
    | undefined,
): ExampleOutcome[] {
  if (!examples) return [];
  return examples.tests.map((line, e) => {
    const rows = examples.onImplementations;
    return exampleOutcome(
      line,
      examples.onUser[e] ?? 'error',
      examples.userOutput?.[e] ?? '',
      rows?.length ? [rows.filter((r) => r[e] === 'passed').length, rows.length] : undefined,
    );
  });
}

/** The verdict shown on the user's function for one test, given its evidence. */
export function userVerdict(onUser: VerdictStatus, evidence: TestEvidence, threshold: number): UserVerdict {
  if (onUser === 'passed') return 'passes';
  if (onUser === 'flaky') return 'flaky';
  if (onUser === 'uncollectable') return 'broken';
  // An input shaped unlike every example may be outside the function's domain, or a case the task
  // leaves to it: the implementations' value there is their choice, not evidence.
  if (evidence.outsideExamples || evidence.valueOutsideExamples) return 'unconfirmed';
  return confirms(evidence, threshold) ? 'fails-confirmed' : 'unconfirmed';
}

/**
 * Whether the evidence is strong enough to call a failure of the user's function one: its
 * confidence reaches the threshold, at least MIN_AGREEING_IMPLEMENTATIONS implementations pass
 * the test, and no more implementations were set aside by the examples than counted (mostSetAside;
 * evidence without the counts, from before they were kept, is read without this condition).
 */
export function confirms(
  evidence: Pick<TestEvidence, 'confidence' | 'implementationsPassing'> &
    Partial<Pick<TestEvidence, 'implementations' | 'setAside'>>,
  threshold: number,
  minAgreeing = MIN_AGREEING_IMPLEMENTATIONS,
): boolean {
  const misread =
    evidence.implementations !== undefined &&
    mostSetAside({ implementations: evidence.implementations, setAside: evidence.setAside });
  return !misread && evidence.confidence >= threshold && evidence.implementationsPassing >= minAgreeing;
}

/** The evidence in words, for the panel, the Test Explorer message and the CLI. */
export function evidenceText(e: TestEvidence): string {
  const agree = `${e.implementationsPassing} of ${e.implementations} generated implementation${e.implementations === 1 ? '' : 's'} pass it`;
  const set = e.bestSet
    ? `; the best consensus set supporting it has ${e.bestSet.implementations} implementation${e.bestSet.implementations === 1 ? '' : 's'} passing ${e.bestSet.testsPassed} test${e.bestSet.testsPassed === 1 ? '' : 's'}`
    : '';
  const aside = e.setAside
    ? `; ${e.setAside} more set aside: ${e.setAside === 1 ? 'it fails' : 'they fail'} an example in the specification`
    : '';
  const lone =
    e.implementationsPassing > 0 && e.implementationsPassing < MIN_AGREEING_IMPLEMENTATIONS
      ? `; fewer than ${MIN_AGREEING_IMPLEMENTATIONS} implementations agreeing cannot confirm a failure`
      : '';
  const misread = mostSetAside(e)
    ? `; most implementations misread the task (${e.setAside} of ${e.setAside! + e.implementations} fail an example in the specification), so those left cannot confirm a failure`
    : '';
  const outside = e.outsideExamples
    ? `; your function raises ${e.outsideExamples} on an input shaped unlike every example of its docstring, which may be outside what it accepts: not confirmed without an example like it`
    : '';
  const unspecified = e.valueOutsideExamples
    ? '; your function returns another value on an input shaped unlike every example of its docstring, where the task may leave the answer to it: not confirmed without an example like it'
    : '';
  return `${agree}${set}${aside}${lone}${misread}${outside}${unspecified} (confidence ${e.confidence.toFixed(2)})`;
}

/** What a verdict means for the user, in words. */
export const USER_VERDICT_TEXT: Record<UserVerdict, string> = {
  passes: 'passes',
  'fails-confirmed': 'fails (confirmed)',
  unconfirmed: 'unconfirmed expectation to review',
  flaky: 'flaky',
  broken: 'test does not run',
};
