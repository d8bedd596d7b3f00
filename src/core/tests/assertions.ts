/**
 * Assertion tests: the test writer's lines of single assertions on the function under test,
 * parsed with tree-sitter and split into the call (run with the code under test, in its own
 * sandbox) and the expected value (evaluated elsewhere, never shown to that code). The oracle
 * runner in src/core/sandbox/oracle/ compares the two in the host.
 */
import { codeBlocks } from './extractTests';
import { parserFor } from './functions';
import {
  argumentsAreData,
  callOfFunction,
  canonicalForm,
  deeperThan,
  directCallOf,
  MAX_NESTING,
  mentions,
  projectionOf,
  unwrap,
  type TsNode,
} from './assertionSyntax';
import type { AssertionCheck, AssertionLanguage, AssertionTest } from '../sandbox/assertionTest';

export type { AssertionCheck, AssertionLanguage, AssertionTest, Tolerance } from '../sandbox/assertionTest';

export interface RejectedLine {
  line: string;
  reason: string;
}

export interface AssertionParse {
  tests: AssertionTest[];
  rejected: RejectedLine[];
}

type Parsed = Pick<AssertionTest, 'check' | 'call' | 'expected' | 'tolerance' | 'exceptions'>;
type Outcome = Parsed | { reason: string };

const FENCE = /^\s*```/;

/**
 * Parses the test writer's output into assertion tests. Only lines that are, on their own, one
 * syntactically valid assertion calling `functionName` are admitted; everything else comes back in
 * `rejected` with the reason (blank lines, comments and code fences are skipped silently). Exact and
 * near duplicates (same call and expected value up to formatting and literal spelling) are dropped
 * as `rejected` too. Never throws on model output.
 */
export async function parseAssertionLines(
  text: string,
  language: AssertionLanguage,
  functionName: string,
): Promise<AssertionParse> {
  const parser = await parserFor(language);
  const tests: AssertionTest[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Map<string, number>();
  const source = text.includes('```') ? codeBlocks(text).join('\n') : text;
  const comment = language === 'python' ? '#' : '//';
  try {
    source.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.trim();
      if (!line || line.startsWith(comment) || FENCE.test(line)) return;
      const tree = parser.parse(line);
      if (!tree) return rejected.push({ line, reason: 'could not be parsed' });
      try {
        if (deeperThan(tree.rootNode, MAX_NESTING))
          return rejected.push({ line, reason: `nested too deeply (more than ${MAX_NESTING} levels)` });
        const outcome = classify(tree.rootNode, language, functionName);
        if ('reason' in outcome) return rejected.push({ line, reason: outcome.reason });
        const key = keyOf(outcome, parser, language);
        const first = seen.get(key);
        if (first !== undefined)
          return rejected.push({ line, reason: `duplicate of line ${first} (same call and expected value)` });
        seen.set(key, i + 1);
        tests.push({
          name: `assert_${tests.length + 1}`,
          line,
          lineNumber: i + 1,
          language,
          functionName,
          ...outcome,
          key,
        });
      } finally {
        tree.delete();
      }
    });
  } finally {
    parser.delete();
  }
  return { tests, rejected };
}

function classify(root: TsNode, language: AssertionLanguage, fn: string): Outcome {
  if (root.hasError)
    return {
      reason: `not valid ${language === 'python' ? 'Python' : 'JavaScript/TypeScript'} on its own line`,
    };
  const statements = root.namedChildren.filter((c): c is TsNode => !!c && c.type !== 'comment');
  if (statements.length !== 1) return { reason: 'more than one statement on the line' };
  return language === 'python' ? pythonAssertion(statements[0], fn) : jsAssertion(statements[0], fn);
}

const CALL_SIDE_RULE =
  'the compared side must be the call itself (optionally inside len/sorted/set/list/tuple/str/abs/round or indexed by a literal), so no expected value travels with it';
const DATA_RULE =
  'the arguments must be plain data (literals, lists, dicts, lambdas over their own parameters): a test must not reach into the module it tests';

/** Why `node` is not an admissible call of `fn`. */
function callProblem(node: TsNode, fn: string, language: AssertionLanguage): string {
  const type = language === 'python' ? 'call' : 'call_expression';
  const calls = [node, ...node.descendantsOfType(type)].filter(
    (c): c is TsNode => !!c && c.type === type && c.childForFieldName('function')?.text === fn,
  );
  if (calls.some((c) => !argumentsAreData(c, language))) return DATA_RULE;
  return mentions(node, fn) ? CALL_SIDE_RULE : `does not call ${fn}`;
}

/** Splits two compared operands into the call and the expected value. */
function sides(
  a: TsNode,
  b: TsNode,
  fn: string,
  language: AssertionLanguage,
): { call: TsNode; expected: TsNode } | { reason: string } {
  const aCalls = projectionOf(a, fn, language);
  const bCalls = projectionOf(b, fn, language);
  if (aCalls && bCalls) return { reason: `both sides call ${fn}: there is no expected value` };
  const call = aCalls ? a : bCalls ? b : undefined;
  if (!call) {
    const reasons = [callProblem(a, fn, language), callProblem(b, fn, language)];
    return {
      reason: reasons.find((r) => r === DATA_RULE) ?? reasons.find((r) => r === CALL_SIDE_RULE) ?? reasons[0],
    };
  }
  const expected = call === a ? b : a;
  if (mentions(expected, fn))
    return { reason: `the expected value uses ${fn}: it must not depend on the code under test` };
  return { call, expected };
}

function pythonAssertion(stmt: TsNode, fn: string): Outcome {
  if (stmt.type === 'with_statement') return pythonRaises(stmt, fn);
  if (stmt.type !== 'assert_statement') return { reason: 'not an assert statement' };
  const cond = unwrap(stmt.namedChildren[0]!);
  if (cond.type === 'comparison_operator') {
    const operands = cond.namedChildren.filter((c): c is TsNode => !!c);
    const ops = cond.children.filter((c) => c && !c.isNamed).map((c) => c!.type);
    if (operands.length !== 2 || ops.length !== 1)
      return { reason: 'chained comparisons are not single assertions' };
    const op = ops[0];
    const split = sides(operands[0], operands[1], fn, 'python');
    if ('reason' in split) return split;
    const call = split.call.text;
    const expected = unwrap(split.expected);
    if (op === 'is' || op === 'is not') {
      if (!['none', 'true', 'false', 'ellipsis'].includes(expected.type))
        return { reason: '`is` is checked only against None, True, False or ...' };
      return { check: op === 'is' ? 'is' : 'isNot', call, expected: expected.text };
    }
    if (op === '!=') return { check: 'notEqual', call, expected: expected.text };
    if (op !== '==') return { reason: `only ==, !=, is and is not are checked, not ${op}` };
    const approx = directCallOf(expected, ['pytest.approx', 'approx']);
    if (!approx) return { check: 'equal', call, expected: expected.text };
    return closeness(approx, call, 'approx', { rel: 'rel', abs: 'abs' });
  }
  const isclose = directCallOf(cond, ['math.isclose', 'isclose']);
  if (isclose) {
    const args = positional(isclose);
    if (args.length !== 2) return { reason: 'math.isclose needs two values' };
    const split = sides(args[0], args[1], fn, 'python');
    if ('reason' in split) return split;
    const tolerance = keywords(isclose, { rel_tol: 'rel', abs_tol: 'abs' });
    if ('reason' in tolerance) return tolerance;
    return {
      check: 'close',
      call: split.call.text,
      expected: unwrap(split.expected).text,
      tolerance: { style: 'isclose', ...tolerance },
    };
  }
  const negated = cond.type === 'not_operator';
  const subject = negated ? unwrap(cond.childForFieldName('argument')!) : cond;
  if (callOfFunction(subject, fn, 'python'))
    return { check: negated ? 'falsy' : 'truthy', call: subject.text, expected: '' };
  const problem = callProblem(cond, fn, 'python');
  return {
    reason:
      problem === CALL_SIDE_RULE
        ? `the condition must compare the result of ${fn} with an expected value`
        : problem,
  };
}

function closeness(
  approx: TsNode,
  call: string,
  style: 'approx',
  names: Record<string, 'rel' | 'abs'>,
): Outcome {
  const args = positional(approx);
  if (args.length !== 1) return { reason: 'pytest.approx needs exactly one expected value' };
  const tolerance = keywords(approx, names);
  if ('reason' in tolerance) return tolerance;
  return { check: 'close', call, expected: args[0].text, tolerance: { style, ...tolerance } };
}

function positional(call: TsNode): TsNode[] {
  const args = call.childForFieldName('arguments');
  return (args?.namedChildren ?? []).filter(
    (a): a is TsNode => !!a && a.type !== 'keyword_argument' && a.type !== 'comment',
  );
}

function keywords(
  call: TsNode,
  names: Record<string, 'rel' | 'abs'>,
): { rel?: string; abs?: string } | { reason: string } {
  const out: { rel?: string; abs?: string } = {};
  for (const a of call.childForFieldName('arguments')?.namedChildren ?? []) {
    if (a?.type !== 'keyword_argument') continue;
    const name = a.childForFieldName('name')?.text ?? '';
    const value = a.childForFieldName('value');
    if (!(name in names) || !value) return { reason: `the tolerance option ${name} is not supported` };
    out[names[name]] = value.text;
  }
  return out;
}

/** `with pytest.raises(E): f(x)` on one line. */
function pythonRaises(stmt: TsNode, fn: string): Outcome {
  const items = stmt.descendantsOfType('with_item');
  const raises =
    items.length === 1
      ? directCallOf(items[0]!.childForFieldName('value')!, ['pytest.raises', 'raises'])
      : undefined;
  if (!raises) return { reason: 'only `with pytest.raises(Error): call` is accepted as a with statement' };
  if (raises.childForFieldName('arguments')?.namedChildren.some((a) => a?.type === 'keyword_argument'))
    return { reason: 'pytest.raises options (match=...) are not supported' };
  const args = positional(raises);
  if (args.length !== 1)
    return { reason: 'pytest.raises needs exactly one exception class (or a tuple of them)' };
  const spec = unwrap(args[0]);
  const classes = spec.type === 'tuple' ? spec.namedChildren.filter((c): c is TsNode => !!c) : [spec];
  if (!classes.every((c) => c.type === 'identifier' || c.type === 'attribute'))
    return { reason: 'pytest.raises takes exception class names' };
  const body = stmt.childForFieldName('body')?.namedChildren.filter((c): c is TsNode => !!c) ?? [];
  if (body.length !== 1 || body[0].type !== 'expression_statement')
    return { reason: 'the body of pytest.raises must be the single call' };
  const call = unwrap(body[0].namedChildren[0]!);
  if (!projectionOf(call, fn, 'python')) return { reason: callProblem(call, fn, 'python') };
  return { check: 'raises', call: call.text, expected: '', exceptions: classes.map((c) => c.text) };
}

const JS_CHECKS: Record<string, AssertionCheck> = {
  deepStrictEqual: 'deepStrictEqual',
  deepEqual: 'deepStrictEqual',
  strictEqual: 'strictEqual',
  equal: 'strictEqual',
  ok: 'truthy',
};

function jsAssertion(stmt: TsNode, fn: string): Outcome {
  const expr = stmt.type === 'expression_statement' ? unwrap(stmt.namedChildren[0]!) : stmt;
  const callee = expr.type === 'call_expression' ? expr.childForFieldName('function') : null;
  const method =
    callee?.type === 'identifier' && callee.text === 'assert'
      ? 'ok'
      : callee?.type === 'member_expression' && callee.childForFieldName('object')?.text === 'assert'
        ? (callee.childForFieldName('property')?.text ?? '')
        : undefined;
  if (method === undefined) return { reason: 'not an assert call' };
  const args = (expr.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (a): a is TsNode => !!a && a.type !== 'comment',
  );
  if (method === 'throws') return jsThrows(args, fn);
  const check = JS_CHECKS[method];
  if (!check) return { reason: `assert.${method} is not one of deepStrictEqual, strictEqual, ok, throws` };
  if (check === 'truthy') {
    const subject = args[0] && unwrap(args[0]);
    const negated = subject?.type === 'unary_expression' && subject.child(0)?.type === '!';
    const inner = negated ? unwrap(subject.childForFieldName('argument')!) : subject;
    if (!inner || !callOfFunction(inner, fn, 'javascript'))
      return { reason: `assert.ok must take the call of ${fn} itself` };
    return { check: negated ? 'falsy' : 'truthy', call: inner.text, expected: '' };
  }
  if (args.length < 2) return { reason: `assert.${method} needs the actual and the expected value` };
  const split = sides(args[0], args[1], fn, 'javascript');
  if ('reason' in split) return split;
  return { check, call: split.call.text, expected: unwrap(split.expected).text };
}

/** `assert.throws(() => f(x), TypeError)`, the class optional. */
function jsThrows(args: TsNode[], fn: string): Outcome {
  const thunk = args[0] && unwrap(args[0]);
  if (thunk?.type !== 'arrow_function' || thunk.childForFieldName('parameters')?.namedChildren.length)
    return { reason: 'assert.throws needs an arrow function without parameters around the call' };
  let body = thunk.childForFieldName('body')!;
  if (body.type === 'statement_block') {
    const inner = body.namedChildren.filter((c): c is TsNode => !!c && c.type !== 'comment');
    if (inner.length !== 1 || inner[0].type !== 'expression_statement')
      return { reason: 'the function given to assert.throws must hold the single call' };
    body = inner[0].namedChildren[0]!;
  }
  const call = unwrap(body);
  if (!projectionOf(call, fn, 'javascript')) return { reason: callProblem(call, fn, 'javascript') };
  const cls = args[1] && unwrap(args[1]);
  if (cls && cls.type !== 'identifier' && cls.type !== 'member_expression')
    return { reason: 'assert.throws is checked against an error class name only' };
  return { check: 'raises', call: call.text, expected: '', exceptions: cls ? [cls.text] : [] };
}

function keyOf(
  t: Parsed,
  parser: { parse(text: string): import('web-tree-sitter').Tree | null },
  language: AssertionLanguage,
): string {
  const canon = (expr: string) => {
    if (!expr) return '';
    // Parenthesised, so that a JavaScript object literal is not read as a block.
    const tree = parser.parse(`(${expr})`);
    if (!tree) return expr;
    try {
      return canonicalForm(tree.rootNode, language);
    } finally {
      tree.delete();
    }
  };
  const tolerance = t.tolerance
    ? `${t.tolerance.style}:${canon(t.tolerance.rel ?? '')}:${canon(t.tolerance.abs ?? '')}`
    : '';
  const exceptions = t.exceptions ? [...t.exceptions].sort().join(',') : '';
  return [t.check, canon(t.call), canon(t.expected), tolerance, exceptions].join('\u0000');
}
