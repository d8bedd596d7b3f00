/**
 * The per-function pass matrix an `eval tests` journal keeps: every admitted test's status on every
 * generated implementation, on the reference and on every known-wrong mutant (each of which plays
 * the user's function in turn). With it, verdict rules and thresholds are refitted from the journal
 * alone (failEvidenceFromMatrix), without running a model again. Rows are strings of one letter
 * per test, so a journal line stays short.
 */
import { confirms, exampleConfirms, outsideExamplesRule, testEvidence } from '../tests/evidence';
import type { VerdictStatus } from '../tests/rewards';

const LETTER: Record<VerdictStatus, string> = {
  passed: 'P',
  failed: 'F',
  error: 'E',
  timeout: 'T',
  uncollectable: 'U',
  flaky: 'K',
};
const STATUS = new Map(Object.entries(LETTER).map(([s, l]) => [l, s as VerdictStatus]));

export interface PassMatrix {
  /** One row per generated implementation: the stage-5 code first, then the samples. */
  implementations: string[];
  /** Which implementations counted as evidence (they pass the specification's examples). */
  counted: boolean[];
  /** The reference, as the user's function. */
  reference: string;
  /** Each known-wrong mutant, as the user's function. */
  mutants: string[];
  /**
   * The docstring's examples (specExamples.ts), one letter per example, in the same rows: what
   * decides which implementations count and which example failures are held against the user's
   * function. Absent in journals from before examples were kept.
   */
  examples?: { lines: string[]; implementations: string[]; reference: string; mutants: string[] };
  /** The admitted tests as written (truncated), so that rules reading the calls can be replayed. */
  tests?: string[];
  /** Per test, 1 where its call is shaped like a docstring example's (preconditions.ts). */
  covered?: string;
  /** Per test, R where the reference (and each mutant) raised on a test expecting a value. */
  raised?: { reference: string; mutants: string[] };
  /**
   * Per implementation row, the tests (examples included) it was not run on because it had timed
   * out on IMPLEMENTATION_MAX_TIMEOUTS of them (pipeline.ts): they read as timeouts. Absent when
   * none was stopped, and in older journals.
   */
  timeCapped?: number[];
}

export function encodeRow(row: readonly VerdictStatus[]): string {
  return row.map((s) => LETTER[s] ?? 'E').join('');
}

/** A row back as statuses; an unknown letter (a hand-edited journal) reads as an error. */
export function decodeRow(row: string): VerdictStatus[] {
  return [...row].map((l) => STATUS.get(l) ?? 'error');
}

/** A docstring example the user's function is shown failing. */
export interface ExampleFail {
  /** Index of the example in the docstring's order. */
  example: number;
  /** Whether the reference passes the example (for a mutant: the failure is real). */
  referencePasses: boolean;
}

/** A failure of the user's function on one test, as a verdict rule sees it. */
export interface MatrixFail {
  test: number;
  confidence: number;
  implementationsPassing: number;
  /** The implementations counted and those set aside by the examples (confirms: mostSetAside). */
  implementations?: number;
  setAside?: number;
  referencePasses: boolean;
  /** The user's function raised on it, and whether its call is shaped like an example's (absent: unknown). */
  raised?: boolean;
  covered?: boolean;
}

const fails = (s: VerdictStatus) => s === 'failed' || s === 'error' || s === 'timeout';

/**
 * The failures of the reference and of each mutant with the product's evidence recomputed from the
 * matrix: what verdictMetrics needs, under any threshold and minimum of agreeing implementations.
 */
export function failEvidenceFromMatrix(m: PassMatrix): { reference: MatrixFail[]; mutants: MatrixFail[][] } {
  const rows = m.implementations.map(decodeRow);
  const reference = decodeRow(m.reference);
  const evidence = testEvidence(rows, reference.length, m.counted);
  const failsOf = (user: VerdictStatus[], raised?: string): MatrixFail[] =>
    user.flatMap((s, t) =>
      fails(s)
        ? [
            {
              test: t,
              confidence: evidence[t]?.confidence ?? 0,
              implementationsPassing: evidence[t]?.implementationsPassing ?? 0,
              implementations: evidence[t]?.implementations ?? 0,
              setAside: evidence[t]?.setAside ?? 0,
              referencePasses: reference[t] === 'passed',
              ...(raised !== undefined && m.covered !== undefined
                ? { raised: raised[t] === 'R', covered: m.covered[t] === '1' }
                : {}),
            },
          ]
        : [],
    );
  return {
    reference: failsOf(reference, m.raised?.reference),
    mutants: m.mutants.map((row, k) => failsOf(decodeRow(row), m.raised?.mutants[k])),
  };
}

/**
 * Whether a user's function with these failures is shown failing under a rule. `hasExamples`: the
 * function's docstring has examples (the matrix's `examples.lines`), which holds values on inputs
 * unlike them to outsideExamplesRule too.
 */
export function shownFailing(
  failures: readonly MatrixFail[],
  threshold: number,
  minAgreeing: number,
  options: { preconditions?: boolean; hasExamples?: boolean } = {},
): boolean {
  const pre = options.preconditions ?? true;
  return failures.some(
    (f) =>
      !(pre && outsideExamplesRule(f, options.hasExamples ?? false)) && confirms(f, threshold, minAgreeing),
  );
}

/**
 * The docstring examples the reference and each mutant are shown failing, from the matrix's example
 * rows (exampleConfirms); none where the journal kept no example rows.
 */
export function exampleFailsFromMatrix(m: PassMatrix): {
  reference: ExampleFail[];
  mutants: ExampleFail[][];
} {
  const ex = m.examples;
  if (!ex) return { reference: [], mutants: m.mutants.map(() => []) };
  const reference = decodeRow(ex.reference);
  const failsOf = (row: string): ExampleFail[] =>
    decodeRow(row).flatMap((s, e) =>
      exampleConfirms(s, ex.lines[e] ?? '')
        ? [{ example: e, referencePasses: reference[e] === 'passed' }]
        : [],
    );
  return { reference: failsOf(ex.reference), mutants: ex.mutants.map(failsOf) };
}
