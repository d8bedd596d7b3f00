/**
 * Tests that cannot be right, found before anything runs: a call whose arity or keyword names do
 * not match the function's signature, or a literal argument whose kind contradicts the parameter's
 * annotation (a list where `int` is declared, a string where `number[]` is) or to what every example
 * in the docstring passes there (a pair of lists where the examples pass one list of pairs). Such a test would
 * "fail" on any implementation and say nothing about the user's code. Only plain cases are judged:
 * a call with a splat, a parameter with a union or generic annotation, a method, is let through.
 */
import { exampleAssertions } from './docstringExamples';
import { parserFor, type CodeLanguage } from './functions';

type TsNode = import('web-tree-sitter').Node;

interface Parameter {
  name: string;
  required: boolean;
  /** May be given by position (Python: before `*`; always in JS/TS). */
  positional: boolean;
  /** May be given by keyword (Python: not before `/`). */
  keyword: boolean;
  /** The annotation reduced to a kind, when it is one plain kind. */
  kind?: LiteralKind;
  /** The kind of literal every docstring example passes here, when they all pass one. */
  exampleKind?: LiteralKind;
}

interface ParameterList {
  params: Parameter[];
  /** `*args` / `...rest`: any number of further positional arguments. */
  variadic: boolean;
  /** `**kwargs`: any keyword. */
  anyKeyword: boolean;
}

type LiteralKind = 'number' | 'string' | 'list' | 'dict';

const PY_ANNOTATION: Record<string, LiteralKind> = {
  int: 'number',
  float: 'number',
  str: 'string',
  list: 'list',
  List: 'list',
  dict: 'dict',
  Dict: 'dict',
};
const PY_LITERAL: Record<string, LiteralKind> = {
  integer: 'number',
  float: 'number',
  string: 'string',
  concatenated_string: 'string',
  list: 'list',
  list_comprehension: 'list',
  dictionary: 'dict',
};
const TS_LITERAL: Record<string, LiteralKind> = {
  number: 'number',
  string: 'string',
  template_string: 'string',
  array: 'list',
};

/** What kinds of literal an annotation of `kind` rules out (an int is a fine float, etc.). */
function contradicts(kind: LiteralKind, literal: LiteralKind): boolean {
  return kind !== literal;
}

function pyKind(annotation: TsNode | null): LiteralKind | undefined {
  if (!annotation) return undefined;
  const text = annotation.text.trim();
  const head = /^(\w+)(\[.*\])?$/s.exec(text);
  return head ? PY_ANNOTATION[head[1]] : undefined;
}

function tsKind(annotation: TsNode | null): LiteralKind | undefined {
  const text = annotation?.text.replace(/^:\s*/, '').trim();
  if (!text) return undefined;
  if (text === 'number') return 'number';
  if (text === 'string') return 'string';
  if (/^[\w.]+\[\]$/.test(text) || /^(?:readonly\s+)?Array<[\w.]+>$/.test(text)) return 'list';
  return undefined;
}

function pythonParameters(params: TsNode): ParameterList {
  const out: ParameterList = { params: [], variadic: false, anyKeyword: false };
  let keywordOnly = false;
  for (const p of params.namedChildren) {
    if (!p) continue;
    if (p.type === 'positional_separator') {
      out.params.forEach((x) => (x.keyword = false));
      continue;
    }
    if (p.type === 'keyword_separator') {
      keywordOnly = true;
      continue;
    }
    const splat = p.type === 'list_splat_pattern' || p.firstNamedChild?.type === 'list_splat_pattern';
    const kwSplat =
      p.type === 'dictionary_splat_pattern' || p.firstNamedChild?.type === 'dictionary_splat_pattern';
    if (splat) {
      out.variadic = true;
      keywordOnly = true;
      continue;
    }
    if (kwSplat) {
      out.anyKeyword = true;
      continue;
    }
    const name = p.type === 'identifier' ? p.text : (p.childForFieldName('name') ?? p.firstNamedChild)?.text;
    if (!name) continue;
    out.params.push({
      name,
      required: p.type === 'identifier' || p.type === 'typed_parameter',
      positional: !keywordOnly,
      keyword: true,
      kind: pyKind(p.childForFieldName('type')),
    });
  }
  return out;
}

function scriptParameters(params: TsNode): ParameterList {
  const out: ParameterList = { params: [], variadic: false, anyKeyword: false };
  const nodes = params.type === 'identifier' ? [params] : params.namedChildren;
  for (const p of nodes) {
    if (!p || p.type === 'comment') continue;
    if (p.type === 'rest_pattern' || p.childForFieldName('pattern')?.type === 'rest_pattern') {
      out.variadic = true;
      continue;
    }
    const optional =
      p.type === 'optional_parameter' || p.type === 'assignment_pattern' || !!p.childForFieldName('value');
    out.params.push({
      name: (p.childForFieldName('pattern') ?? p.childForFieldName('left') ?? p).text,
      // Plain JavaScript may leave any parameter out; TypeScript says which are required.
      required: !optional && p.type === 'required_parameter',
      positional: true,
      keyword: false,
      kind: tsKind(p.childForFieldName('type')),
    });
  }
  return out;
}

/** The first call of `fn` in a tree (the call may sit inside a projection such as `len(...)`). */
function findCall(root: TsNode, fn: string, language: CodeLanguage): TsNode | undefined {
  const type = language === 'python' ? 'call' : 'call_expression';
  return [root, ...root.descendantsOfType(type)].find(
    (c) => c?.type === type && c.childForFieldName('function')?.text === fn,
  ) as TsNode | undefined;
}

function parametersOf(root: TsNode, language: CodeLanguage): ParameterList | undefined {
  if (language === 'python') {
    const def = root.descendantsOfType('function_definition')[0];
    const params = def?.childForFieldName('parameters');
    return params ? pythonParameters(params) : undefined;
  }
  const fn = root.descendantsOfType([
    'function_declaration',
    'function_expression',
    'arrow_function',
    'generator_function_declaration',
  ])[0];
  const params = fn?.childForFieldName('parameters') ?? fn?.childForFieldName('parameter');
  return params ? scriptParameters(params) : undefined;
}

const article = (kind: LiteralKind) => (kind === 'list' ? 'a list' : `a ${kind}`);

/** The literal kinds a call passes, by parameter name (positional arguments mapped through `list`). */
function literalKinds(
  call: TsNode,
  list: ParameterList,
  language: CodeLanguage,
): Map<string, LiteralKind | null> {
  const literals = language === 'python' ? PY_LITERAL : TS_LITERAL;
  const args =
    call.childForFieldName('arguments')?.namedChildren.filter((a) => a && a.type !== 'comment') ?? [];
  const byPosition = list.params.filter((p) => p.positional);
  const kinds = new Map<string, LiteralKind | null>();
  let position = 0;
  for (const a of args as TsNode[]) {
    if (a.type === 'keyword_argument') {
      const value = a.childForFieldName('value');
      kinds.set(a.childForFieldName('name')?.text ?? '', value ? (literals[value.type] ?? null) : null);
    } else {
      const param = byPosition[position++];
      if (param) kinds.set(param.name, literals[a.type] ?? null);
    }
  }
  return kinds;
}

/**
 * Gives each parameter the literal kind that every docstring example passing it passes (none when
 * they differ, or pass something other than a plain literal). The examples are the user's own
 * words about the function, as an annotation is; a call that contradicts them cannot be right.
 */
function learnFromExamples(
  list: ParameterList,
  examples: readonly string[],
  name: string,
  language: CodeLanguage,
  parse: (text: string) => { root: TsNode; done: () => void } | undefined,
): void {
  const seen = new Map<string, LiteralKind | null>();
  for (const line of examples) {
    const tree = parse(line);
    if (!tree) continue;
    try {
      const call = findCall(tree.root, name, language);
      if (!call) continue;
      for (const [param, kind] of literalKinds(call, list, language))
        seen.set(param, seen.has(param) && seen.get(param) !== kind ? null : kind);
    } finally {
      tree.done();
    }
  }
  for (const p of list.params) p.exampleKind = seen.get(p.name) ?? undefined;
}

/** Why `call` cannot be a call of a function with `list`; undefined when nothing rules it out. */
function mismatch(call: TsNode, list: ParameterList, fn: string, language: CodeLanguage): string | undefined {
  const args =
    call.childForFieldName('arguments')?.namedChildren.filter((a) => a && a.type !== 'comment') ?? [];
  if (args.some((a) => /splat|spread_element|generator_expression/.test(a!.type))) return undefined;
  const keywords = args.filter((a) => a!.type === 'keyword_argument') as TsNode[];
  const positional = args.filter((a) => a!.type !== 'keyword_argument') as TsNode[];
  const byPosition = list.params.filter((p) => p.positional);
  if (positional.length > byPosition.length && !list.variadic)
    return `${fn} takes ${byPosition.length} positional argument${byPosition.length === 1 ? '' : 's'}, but this call gives ${positional.length}`;
  const given = new Set(byPosition.slice(0, positional.length).map((p) => p.name));
  for (const k of keywords) {
    const name = k.childForFieldName('name')?.text ?? '';
    const param = list.params.find((p) => p.name === name && p.keyword);
    if (!param && !list.anyKeyword) return `${fn} has no parameter named ${name}`;
    if (given.has(name)) return `${name} is given twice (by position and by keyword)`;
    given.add(name);
  }
  const missing = list.params.filter((p) => p.required && !given.has(p.name));
  if (missing.length)
    return `the call leaves out the required argument${missing.length === 1 ? '' : 's'} ${missing.map((p) => p.name).join(', ')} of ${fn}`;
  const literals = language === 'python' ? PY_LITERAL : TS_LITERAL;
  const check = (param: Parameter | undefined, arg: TsNode) => {
    const literal = literals[arg.type];
    if (!param || !literal) return undefined;
    if (param.kind && contradicts(param.kind, literal))
      return `argument ${param.name} is declared ${article(param.kind)} but the call passes a ${literal} literal (${arg.text.slice(0, 40)})`;
    if (!param.kind && param.exampleKind && contradicts(param.exampleKind, literal))
      return `argument ${param.name} is ${article(param.exampleKind)} in every example of the docstring but the call passes a ${literal} literal (${arg.text.slice(0, 40)})`;
    return undefined;
  };
  for (let i = 0; i < positional.length && i < byPosition.length; i++) {
    const why = check(byPosition[i], positional[i]);
    if (why) return why;
  }
  for (const k of keywords) {
    const name = k.childForFieldName('name')?.text;
    const value = k.childForFieldName('value');
    const why = value
      ? check(
          list.params.find((p) => p.name === name),
          value,
        )
      : undefined;
    if (why) return why;
  }
  return undefined;
}

/**
 * For each call of the function, the reason it cannot match the signature, or undefined. A
 * signature that does not parse lets every call through.
 */
export async function signatureProblems(
  target: { name: string; language: CodeLanguage; signature: string; kind?: string; docstring?: string },
  calls: readonly string[],
): Promise<(string | undefined)[]> {
  // A method's first parameter is bound by the call's receiver; those calls are not judged here.
  if (target.kind === 'method' || !calls.length) return calls.map(() => undefined);
  const parser = await parserFor(target.language);
  try {
    // A found function's signature stops before its body (a Python one before the colon).
    const body = target.language === 'python' ? ':\n    pass\n' : ' {}';
    const head = target.signature.replace(target.language === 'python' ? /[\s:]*$/ : /[\s{]*$/, '');
    const sigTree = parser.parse(head + body);
    const list = sigTree ? parametersOf(sigTree.rootNode, target.language) : undefined;
    sigTree?.delete();
    if (list && target.language === 'python')
      learnFromExamples(
        list,
        exampleAssertions(target.docstring, target.name),
        target.name,
        'python',
        (text) => {
          const tree = parser.parse(text);
          return tree ? { root: tree.rootNode, done: () => tree.delete() } : undefined;
        },
      );
    return calls.map((call) => {
      if (!list) return undefined;
      const tree = parser.parse(call);
      try {
        const node = tree ? findCall(tree.rootNode, target.name, target.language) : undefined;
        return node ? mismatch(node, list, target.name, target.language) : undefined;
      } finally {
        tree?.delete();
      }
    });
  } finally {
    parser.delete();
  }
}
