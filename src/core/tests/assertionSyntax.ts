/** Syntax-tree helpers of the assertion parser: call shapes and a canonical form for duplicates. */
export type TsNode = import('web-tree-sitter').Node;

type Lang = 'python' | 'javascript' | 'typescript';

const named = (n: TsNode): TsNode[] =>
  n.namedChildren.filter((c): c is TsNode => !!c && c.type !== 'comment');

/**
 * Syntax-tree levels a line may have. The walks below recurse once per level, so a line nested
 * thousands deep would overflow the host's stack; real assertions stay far below this.
 */
export const MAX_NESTING = 100;

/** Whether the tree under `root` has more than `limit` levels, walked with a cursor (no recursion). */
export function deeperThan(root: TsNode, limit: number): boolean {
  const cursor = root.walk();
  try {
    let depth = 0;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        if (++depth > limit) return true;
        continue;
      }
      for (;;) {
        if (depth === 0) return false;
        if (cursor.gotoNextSibling()) break;
        cursor.gotoParent();
        depth--;
      }
    }
  } finally {
    cursor.delete();
  }
}

/** The expression inside any number of parentheses. */
export function unwrap(node: TsNode): TsNode {
  let n = node;
  while (n.type === 'parenthesized_expression') {
    const inner = named(n);
    if (inner.length !== 1) break;
    n = inner[0];
  }
  return n;
}

/** The call node when `node` is a call of one of `names` (JavaScript: `await` allowed around it). */
export function directCallOf(node: TsNode, names: string[]): TsNode | undefined {
  const n = unwrap(node);
  if (n.type === 'await_expression') {
    const inner = named(n)[0];
    return inner ? directCallOf(inner, names) : undefined;
  }
  if (n.type !== 'call' && n.type !== 'call_expression') return undefined;
  const callee = n.childForFieldName('function');
  return callee && names.includes(callee.text) ? n : undefined;
}

/** Whether `fn` appears anywhere in the expression (called or passed as a value). */
export function mentions(node: TsNode, fn: string): boolean {
  if (['identifier', 'attribute', 'member_expression'].includes(node.type) && node.text === fn) return true;
  return named(node).some((c) => mentions(c, fn));
}

/** A call of `fn` whose arguments are plain data (see argumentsAreData). */
export function callOfFunction(node: TsNode, fn: string, language: Lang): boolean {
  const call = directCallOf(node, [fn]);
  return !!call && argumentsAreData(call, language);
}

// Pure one-argument views of a result: they let a test compare a length or a sorted copy while no
// expected value travels to the code under test inside the call.
const PY_VIEWS = [
  'len',
  'sorted',
  'set',
  'frozenset',
  'list',
  'tuple',
  'str',
  'repr',
  'abs',
  'sum',
  'min',
  'max',
  'bool',
];
const LITERAL_INDEX = new Set(['integer', 'string', 'number', 'unary_operator', 'unary_expression']);

function literalIndex(node: TsNode | null): boolean {
  if (!node) return false;
  const n = unwrap(node);
  if (n.type === 'unary_operator' || n.type === 'unary_expression') {
    const arg = named(n)[0];
    return !!arg && (arg.type === 'integer' || arg.type === 'number') && n.text.trim().startsWith('-');
  }
  return LITERAL_INDEX.has(n.type);
}

/**
 * Whether `node` is the call of `fn`, optionally inside a view (len, sorted, set, ..., round(x, n),
 * `.length`) or indexed by a literal. Anything else could carry the expected value into the sandbox.
 */
export function projectionOf(node: TsNode, fn: string, language: Lang): boolean {
  const n = unwrap(node);
  if (directCallOf(n, [fn])) return callOfFunction(n, fn, language);
  if (language === 'python') {
    if (n.type === 'subscript') {
      const index = n.childrenForFieldName('subscript');
      return (
        index.length === 1 &&
        literalIndex(index[0]) &&
        projectionOf(n.childForFieldName('value')!, fn, language)
      );
    }
    if (n.type !== 'call') return false;
    const callee = n.childForFieldName('function')?.text ?? '';
    const args = n.childForFieldName('arguments');
    const list = args ? named(args) : [];
    if (list.some((a) => a.type === 'keyword_argument' && callee !== 'sorted')) return false;
    const positional = list.filter((a) => a.type !== 'keyword_argument');
    if (callee === 'round')
      return (
        positional.length <= 2 &&
        (positional.length < 2 || positional[1].type === 'integer') &&
        !!positional[0] &&
        projectionOf(positional[0], fn, language)
      );
    return PY_VIEWS.includes(callee) && positional.length === 1 && projectionOf(positional[0], fn, language);
  }
  if (n.type === 'member_expression')
    return (
      n.childForFieldName('property')?.text === 'length' &&
      projectionOf(n.childForFieldName('object')!, fn, language)
    );
  if (n.type === 'subscript_expression')
    return (
      literalIndex(n.childForFieldName('index')) && projectionOf(n.childForFieldName('object')!, fn, language)
    );
  return false;
}

function pythonString(text: string): string {
  const m = /^([a-zA-Z]{0,2})('''|"""|'|")([\s\S]*)\2$/.exec(text);
  if (!m) return text;
  let prefix = m[1].toLowerCase().replace('u', '');
  const content = m[3];
  if (prefix.includes('f')) return text;
  if (content.includes('\\')) return prefix.includes('r') ? `s:${prefix}:${JSON.stringify(content)}` : text;
  prefix = prefix.replace('r', '');
  return `s:${prefix}:${JSON.stringify(content)}`;
}

function jsString(node: TsNode): string {
  const text = node.text;
  if (node.type === 'template_string' && named(node).some((c) => c.type === 'template_substitution'))
    return text;
  const content = text.slice(1, -1);
  return content.includes('\\') ? text : `s:${JSON.stringify(content)}`;
}

function numberForm(text: string, kind: 'int' | 'float' | 'js'): string {
  const digits = text.replace(/_/g, '');
  if (kind === 'int') {
    if (/[jJlL]$/.test(digits)) return text;
    try {
      return `i:${BigInt(digits).toString()}`;
    } catch {
      return text;
    }
  }
  if (/[jJn]$/.test(digits)) return text;
  const value = Number(digits);
  return Number.isNaN(value) ? text : `${kind === 'float' ? 'f' : 'n'}:${String(value)}`;
}

/**
 * A canonical form of an expression: tokens only (no whitespace, comments, trailing commas or
 * redundant parentheses), string literals by their content, numbers by their value.
 */
export function canonicalForm(node: TsNode, language: Lang): string {
  const n = unwrap(node);
  if (language === 'python') {
    if (n.type === 'integer') return numberForm(n.text, 'int');
    if (n.type === 'float') return numberForm(n.text, 'float');
    if (n.type === 'string') return pythonString(n.text);
  } else {
    if (n.type === 'number') return numberForm(n.text, 'js');
    if (n.type === 'string' || n.type === 'template_string') return jsString(n);
  }
  if (n.childCount === 0) return n.text;
  const parts = n.children
    .filter((c): c is TsNode => !!c && c.type !== ',' && c.type !== 'comment')
    .map((c) => canonicalForm(c, language));
  return `(${n.type} ${parts.join(' ')})`;
}

// ---- Arguments: plain data only ------------------------------------------------------------------
// The call runs inside the code under test. If its arguments could reach that code's module (a
// global, an attribute, a file), a test could tell implementations apart and pass on one, fail on
// the other, whatever they compute. So arguments are data: literals, containers, a few pure
// builtins, and lambdas/comprehensions over their own variables.

const PY_NAMES = new Set(
  'float int str bool complex bytes bytearray list tuple set frozenset dict range len sorted reversed enumerate zip map filter sum min max abs round chr ord all any'.split(
    ' ',
  ),
);
const JS_NAMES = new Set(
  'undefined NaN Infinity Array Object Number String Boolean BigInt Math Set Map Date JSON'.split(' '),
);
const JS_BLOCKED_PROPERTIES = new Set([
  'constructor',
  '__proto__',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'caller',
  'callee',
  'arguments',
]);
const FORBIDDEN = new Set([
  'attribute',
  'named_expression',
  'yield',
  'await',
  'await_expression',
  'this',
  'super',
  'import',
  'meta_property',
  'assignment_expression',
  'augmented_assignment_expression',
  'update_expression',
  'function_expression',
  'function',
  'generator_function',
  'class',
  'yield_expression',
]);
const COMPREHENSIONS = new Set([
  'list_comprehension',
  'set_comprehension',
  'dictionary_comprehension',
  'generator_expression',
]);

function names(pattern: TsNode): string[] | undefined {
  if (pattern.type === 'identifier' || pattern.type === 'shorthand_property_identifier_pattern')
    return [pattern.text];
  if (
    ['tuple', 'tuple_pattern', 'pattern_list', 'list_pattern', 'parenthesized_expression'].includes(
      pattern.type,
    )
  ) {
    const parts = named(pattern).map(names);
    return parts.every((p) => p) ? (parts.flat() as string[]) : undefined;
  }
  return undefined;
}

/** Parameters of a lambda / arrow function; defaults are checked in the enclosing scope. */
function parameters(params: TsNode | null, bound: Set<string>, lang: Lang): Set<string> | undefined {
  const out = new Set(bound);
  if (!params) return out;
  const list = params.type === 'identifier' ? [params] : named(params);
  for (const p of list) {
    if (p.type === 'identifier') out.add(p.text);
    else if (p.type === 'default_parameter' || p.type === 'assignment_pattern') {
      const name = p.childForFieldName(p.type === 'default_parameter' ? 'name' : 'left');
      const value = p.childForFieldName(p.type === 'default_parameter' ? 'value' : 'right');
      if (name?.type !== 'identifier' || !value || !isData(value, bound, lang)) return undefined;
      out.add(name.text);
    } else if (['list_splat_pattern', 'dictionary_splat_pattern', 'rest_pattern'].includes(p.type)) {
      const inner = named(p)[0];
      if (inner?.type !== 'identifier') return undefined;
      out.add(inner.text);
    } else if (p.type !== 'keyword_separator' && p.type !== 'positional_separator') return undefined;
  }
  return out;
}

function isData(node: TsNode, bound: Set<string>, lang: Lang): boolean {
  const t = node.type;
  if (FORBIDDEN.has(t)) return false;
  if (t === 'identifier' || t === 'shorthand_property_identifier')
    return bound.has(node.text) || (lang === 'python' ? PY_NAMES : JS_NAMES).has(node.text);
  if (t === 'lambda' || t === 'arrow_function') {
    const inner = parameters(
      node.childForFieldName('parameters') ?? node.childForFieldName('parameter'),
      bound,
      lang,
    );
    const body = node.childForFieldName('body');
    return !!inner && !!body && isData(body, inner, lang);
  }
  if (COMPREHENSIONS.has(t)) {
    const scope = new Set(bound);
    const clauses = named(node).filter((c) => c.type === 'for_in_clause' || c.type === 'if_clause');
    for (const c of clauses) {
      if (c.type === 'if_clause') {
        if (!named(c).every((x) => isData(x, scope, lang))) return false;
        continue;
      }
      const right = c.childForFieldName('right');
      const left = c.childForFieldName('left');
      const bind = left && names(left);
      if (!right || !bind || !isData(right, scope, lang)) return false;
      bind.forEach((n) => scope.add(n));
    }
    const body = node.childForFieldName('body');
    return !!body && isData(body, scope, lang);
  }
  if (t === 'keyword_argument') {
    const value = node.childForFieldName('value');
    return !!value && isData(value, bound, lang);
  }
  if (t === 'pair' && lang !== 'python') {
    const key = node.childForFieldName('key');
    const value = node.childForFieldName('value');
    const keyOk = !key || key.type === 'property_identifier' || isData(key, bound, lang);
    return keyOk && !!value && isData(value, bound, lang);
  }
  if (t === 'member_expression') {
    const property = node.childForFieldName('property');
    const object = node.childForFieldName('object');
    return !!property && !!object && !JS_BLOCKED_PROPERTIES.has(property.text) && isData(object, bound, lang);
  }
  if (t === 'subscript_expression') {
    const index = node.childForFieldName('index');
    const object = node.childForFieldName('object');
    return index?.type === 'number' && !!object && isData(object, bound, lang);
  }
  return named(node).every((c) => isData(c, bound, lang));
}

/** Whether every argument of `call` is plain data (see above). */
export function argumentsAreData(call: TsNode, lang: Lang): boolean {
  const args = call.childForFieldName('arguments');
  return !args || named(args).every((a) => isData(a, new Set(), lang));
}
