/** The host's verdict on one assertion test: the call's outcome against the expected value. */
import type { AssertionTest } from '../assertionTest';
import type { TestStatus } from '../types';
import { jsInspect, pyRepr } from './render';
import type { ItemFailure } from './resumable';
import {
  decodeValue,
  jsDeepStrictEqual,
  jsStrictEqual,
  jsTruthy,
  pyClose,
  pyEqual,
  pyTruthy,
  type Value,
} from './values';

export type CallOutcome =
  | { kind: 'returned'; value: Value; out: string }
  | {
      kind: 'raised';
      type: string;
      /** The first built-in exception class of the raised type, placed by identity in its process. */
      branch: string | null;
      /** Names of the code's own classes the raised type inherits from, before that built-in. */
      own: string[];
      message: string;
      out: string;
    }
  | { kind: 'timeout'; detail: string }
  | { kind: 'too-large'; detail: string }
  | ItemFailure;

/** What the expected-value sandbox returned for one test (tests without an expected value have none). */
export interface ExpectedOutcome {
  value?: Value;
  rel?: Value;
  abs?: Value;
  /**
   * For a raises test, each named exception class resolved in the sandbox that never loads the
   * code under test: the built-in classes that are it or inherit from it, or null when it is not a
   * built-in (a class of the code's own, matched by name).
   */
  subclasses?: Record<string, string[] | null>;
  error?: string;
}

/** Reads one call record from the calls harness. */
export function callOutcome(record: Record<string, unknown>, limitMs: number): CallOutcome {
  const out = typeof record.out === 'string' ? record.out : '';
  if ('r' in record) return { kind: 'returned', value: decodeValue(record.r), out };
  if (record.timeout === true)
    return {
      kind: 'timeout',
      detail: `The call did not finish within ${limitMs} ms.${out ? `\n${out}` : ''}`,
    };
  if (record.big === true) return { kind: 'too-large', detail: 'The result is too large to compare.' };
  const x = (record.x ?? {}) as Record<string, unknown>;
  return {
    kind: 'raised',
    type: typeof x.type === 'string' ? x.type : 'exception',
    branch: typeof x.branch === 'string' ? x.branch : null,
    own: strings(x.own) ?? [],
    message: typeof x.message === 'string' ? x.message : '',
    out,
  };
}

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((c): c is string => typeof c === 'string') : undefined;

/** Reads one record from the expected-value harness. */
export function expectedOutcome(record: Record<string, unknown>): ExpectedOutcome {
  if (typeof record.error === 'string') return { error: record.error };
  const raw = record.subclasses;
  const subclasses =
    raw && typeof raw === 'object'
      ? Object.fromEntries(Object.entries(raw).map(([name, list]) => [name, strings(list) ?? null]))
      : undefined;
  return {
    value: 'expected' in record ? decodeValue(record.expected) : undefined,
    rel: 'rel' in record ? decodeValue(record.rel) : undefined,
    abs: 'abs' in record ? decodeValue(record.abs) : undefined,
    subclasses,
  };
}

/**
 * Whether a raised exception is an instance of the class a test names, as pytest's and Node's
 * isinstance/instanceof decide: a built-in class matches the raised type's built-in branch, read
 * by identity, and never a name the code's own classes carry; a class of the code's own matches
 * by name. A class the expected-value sandbox did not resolve matches nothing.
 */
function raisedMatches(
  name: string,
  call: { branch: string | null; own: string[] },
  expected?: ExpectedOutcome,
) {
  const builtin = expected?.subclasses?.[name];
  if (builtin === undefined) return false;
  if (builtin === null) return call.own.includes(name);
  return call.branch !== null && builtin.includes(call.branch);
}

function tolerance(v: Value | undefined): number | undefined | null {
  if (!v) return undefined;
  if (v.t === 'int') return Number(v.v);
  if (v.t === 'float') return v.v;
  return null;
}

export const lastName = (name: string) => name.split('.').pop() ?? name;

export interface Judgement {
  status: TestStatus;
  output: string;
}

export function judge(
  test: AssertionTest,
  call: CallOutcome,
  expected: ExpectedOutcome | undefined,
): Judgement {
  const python = test.language === 'python';
  const show = python ? pyRepr : jsInspect;
  const withOut = (text: string, out = '') =>
    out.trim() ? `${text}\n--- printed during the call ---\n${out}` : text;
  switch (call.kind) {
    case 'not-loaded':
      return { status: 'uncollectable', output: call.detail };
    case 'timeout':
    case 'not-run':
      return { status: 'timeout', output: call.detail };
    case 'crashed':
    case 'too-large':
      return { status: 'error', output: call.detail };
  }
  if (expected?.error) return { status: 'error', output: `The test is broken: ${expected.error}` };
  if (test.check === 'raises') {
    if (call.kind === 'returned')
      return {
        status: 'failed',
        output: withOut(
          `${test.call} returned ${show(call.value)}; expected it to raise ${test.exceptions?.join(' or ') || 'an error'}.`,
          call.out,
        ),
      };
    const wanted = (test.exceptions ?? []).map(lastName);
    const ok = wanted.length === 0 || wanted.some((w) => raisedMatches(w, call, expected));
    return ok
      ? { status: 'passed', output: '' }
      : {
          status: 'failed',
          output: withOut(
            `${test.call} raised ${call.type}: ${call.message}; expected ${wanted.join(' or ')}.`,
            call.out,
          ),
        };
  }
  if (call.kind === 'raised')
    return {
      status: 'failed',
      output: withOut(`${test.call} raised ${call.type}: ${call.message}`, call.out),
    };
  const actual = call.value;
  if (actual.t === 'opaque')
    return {
      status: 'failed',
      output: withOut(
        `${test.call} returned a ${actual.type}, not a plain value: it is never equal to anything.`,
        call.out,
      ),
    };
  const fail = (detail: string) => ({
    status: 'failed' as const,
    output: withOut(`${test.call} returned ${show(actual)}\n${detail}`, call.out),
  });
  const pass = { status: 'passed' as const, output: '' };
  switch (test.check) {
    case 'truthy':
    case 'falsy': {
      const truth = python ? pyTruthy(actual) : jsTruthy(actual);
      return truth === (test.check === 'truthy') ? pass : fail(`expected a ${test.check} value`);
    }
    case 'is':
    case 'isNot': {
      const same =
        (test.expected === 'None' && actual.t === 'none') ||
        (test.expected === '...' && actual.t === 'ellipsis') ||
        (actual.t === 'bool' && String(actual.v) === test.expected.toLowerCase());
      return same === (test.check === 'is')
        ? pass
        : fail(`assert ${show(actual)} ${test.check === 'is' ? 'is' : 'is not'} ${test.expected}`);
    }
  }
  const want = expected?.value;
  if (!want) return { status: 'error', output: 'The expected value did not come back from its sandbox.' };
  switch (test.check) {
    case 'equal':
      return pyEqual(actual, want) ? pass : fail(`assert ${show(actual)} == ${show(want)}`);
    case 'notEqual':
      return want.t !== 'opaque' && !pyEqual(actual, want)
        ? pass
        : fail(`assert ${show(actual)} != ${show(want)}`);
    case 'close': {
      const rel = tolerance(expected?.rel);
      const abs = tolerance(expected?.abs);
      if (rel === null || abs === null)
        return { status: 'error', output: 'The test is broken: a tolerance is not a number.' };
      const style = test.tolerance?.style ?? 'approx';
      return pyClose(actual, want, { style, rel, abs })
        ? pass
        : fail(
            `assert ${show(actual)} == ${style === 'approx' ? `approx(${show(want)})` : `${show(want)} (math.isclose)`}`,
          );
    }
    case 'strictEqual':
      return jsStrictEqual(actual, want)
        ? pass
        : fail(`Expected values to be strictly equal:\n${show(actual)} !== ${show(want)}`);
    case 'deepStrictEqual':
      return jsDeepStrictEqual(actual, want)
        ? pass
        : fail(`Expected values to be strictly deep-equal:\n${show(actual)} !== ${show(want)}`);
  }
  return { status: 'error', output: `Unknown check ${test.check}.` };
}

/**
 * Whether the call ran to an end in its sandbox (a value or an exception), so that its verdicts
 * in two runs can be compared.
 */
export function completed(call: CallOutcome): boolean {
  return call.kind === 'returned' || call.kind === 'raised';
}

/**
 * The verdict of a test whose call completed in two runs of the code (the first and run
 * `againRun`) with two verdicts: neither counts, since the result depends on the run (random
 * numbers, the clock, a set's order under Python's per-process string hashing).
 */
export function flakyJudgement(first: Judgement, again: Judgement, againRun = 2): Judgement {
  const told = (j: Judgement) => (j.output ? `${j.status}: ${j.output}` : j.status);
  return {
    status: 'flaky',
    output: `Flaky: ${first.status} in one run of the code and ${again.status} in another, so this test cannot be relied on (the result changes from run to run).\nRun 1 ${told(first)}\nRun ${againRun} ${told(again)}`,
  };
}
