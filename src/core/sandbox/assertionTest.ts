/**
 * One assertion test as the sandbox's oracle runs it: the call (run with the code under test) and
 * the expected value (evaluated apart, never shown to that code), compared in the host. The test
 * writer's parser (tests/assertions.ts) produces these; the oracle only reads them, so the
 * type lives here, below both.
 */
export type AssertionLanguage = 'python' | 'javascript' | 'typescript';

/**
 * How the host compares the call's result with the expected value.
 * - equal / notEqual: Python `==` / `!=` (1 == 1.0 == True, tuple ≠ list, dicts and sets unordered).
 * - close: float closeness, only where the test asks for it (`pytest.approx`, `math.isclose`).
 * - is / isNot: Python identity with None, True, False or Ellipsis.
 * - truthy / falsy: the result's truth value (`assert f(x)`, `assert not f(x)`, `assert.ok(f(x))`).
 * - raises: the call raises one of `exceptions` (`pytest.raises`, `assert.throws`).
 * - strictEqual / deepStrictEqual: Node's `assert/strict` semantics.
 */
export type AssertionCheck =
  | 'equal'
  | 'notEqual'
  | 'close'
  | 'is'
  | 'isNot'
  | 'truthy'
  | 'falsy'
  | 'raises'
  | 'strictEqual'
  | 'deepStrictEqual';

/** Tolerances as the test wrote them (source expressions, evaluated with the expected value). */
export interface Tolerance {
  /** `approx`: pytest.approx defaults (rel 1e-6, abs 1e-12); `isclose`: math.isclose (rel 1e-9, abs 0). */
  style: 'approx' | 'isclose';
  rel?: string;
  abs?: string;
}

export interface AssertionTest {
  /** `assert_N`, N counting the admitted tests of one parse from 1; callers may rename. */
  name: string;
  /** The line as written, trimmed. */
  line: string;
  /** 1-based line in the parsed text. */
  lineNumber: number;
  language: AssertionLanguage;
  functionName: string;
  check: AssertionCheck;
  /** Evaluated with the code under test: the call, optionally inside a projection (`len(...)`, `x[0]`). */
  call: string;
  /** The expected value's expression; never shown to the code under test ('' for truthy/falsy/raises). */
  expected: string;
  tolerance?: Tolerance;
  /** raises: accepted exception class names; empty for JS `assert.throws` without a class (any error). */
  exceptions?: string[];
  /** Normalised identity: two tests with the same key are the same test. */
  key: string;
}
