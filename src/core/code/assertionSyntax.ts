/** Syntax-tree helpers of the assertion parser: call shapes and a canonical form for duplicates. */
export type TsNode = import('web-tree-sitter').Node;

type Lang = 'python' | 'javascript' | 'typescript';

const named = (n: TsNode): TsNode[] =>
  n.namedChildren.filter((c): c is TsNode => !!c && c.type !== 'comment');

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
  if (directCallOf(n, [fn])) return true;
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
