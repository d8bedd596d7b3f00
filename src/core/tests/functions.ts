import * as path from 'node:path';
import * as fs from 'node:fs';

/**
 * Finds functions in Python and JavaScript/TypeScript source with real tree-sitter grammars (the
 * grammar packages ship their WebAssembly builds), so decorators, nested classes, arrow functions
 * and multi-line signatures are found the way the language defines them.
 */

export type CodeLanguage = 'python' | 'javascript' | 'typescript' | 'tsx';

export interface FoundFunction {
  name: string;
  /** `Class.method` for methods, otherwise the plain name. */
  qualifiedName: string;
  language: CodeLanguage;
  kind: 'function' | 'method' | 'arrow';
  /** 0-based lines and character offsets of the whole definition (decorators included). */
  startLine: number;
  endLine: number;
  startIndex: number;
  endIndex: number;
  /** Line of the name, where a CodeLens goes. */
  nameLine: number;
  signature: string;
  docstring?: string;
  source: string;
  isAsync: boolean;
  exported: boolean;
}

type TreeSitter = typeof import('web-tree-sitter');
type TsNode = import('web-tree-sitter').Node;

let runtime: Promise<TreeSitter> | undefined;
const languages = new Map<CodeLanguage, Promise<import('web-tree-sitter').Language>>();

const GRAMMARS: Record<CodeLanguage, { pkg: string; file: string }> = {
  python: { pkg: 'tree-sitter-python', file: 'tree-sitter-python.wasm' },
  javascript: { pkg: 'tree-sitter-javascript', file: 'tree-sitter-javascript.wasm' },
  typescript: { pkg: 'tree-sitter-typescript', file: 'tree-sitter-typescript.wasm' },
  tsx: { pkg: 'tree-sitter-typescript', file: 'tree-sitter-tsx.wasm' },
};

export function languageForFile(fileName: string): CodeLanguage | undefined {
  const ext = path.extname(fileName).toLowerCase();
  if (ext === '.py') return 'python';
  if (ext === '.js' || ext === '.mjs' || ext === '.cjs' || ext === '.jsx') return 'javascript';
  if (ext === '.ts' || ext === '.mts' || ext === '.cts') return 'typescript';
  if (ext === '.tsx') return 'tsx';
  return undefined;
}

function grammarPath(language: CodeLanguage): string {
  const { pkg, file } = GRAMMARS[language];
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  const wasm = path.join(dir, file);
  if (!fs.existsSync(wasm))
    throw new Error(`The ${language} grammar (${wasm}) is missing; reinstall Stepwise's dependencies.`);
  return wasm;
}

/** A tree-sitter parser for one language; the caller deletes it. */
export async function parserFor(language: CodeLanguage) {
  runtime ??= (async () => {
    // Loaded on first use only: the parser runtime is WebAssembly and costs time at start-up.
    const ts = (await import('web-tree-sitter')) as TreeSitter;
    await ts.Parser.init();
    return ts;
  })();
  const ts = await runtime;
  let lang = languages.get(language);
  if (!lang) {
    lang = ts.Language.load(grammarPath(language));
    languages.set(language, lang);
  }
  const parser = new ts.Parser();
  parser.setLanguage(await lang);
  return parser;
}

export async function findFunctions(source: string, language: CodeLanguage): Promise<FoundFunction[]> {
  const parser = await parserFor(language);
  const tree = parser.parse(source);
  if (!tree) return [];
  const found: FoundFunction[] = [];
  try {
    visit(tree.rootNode, [], found, source, language);
  } finally {
    tree.delete();
    parser.delete();
  }
  return found.sort((a, b) => a.startIndex - b.startIndex);
}

function visit(
  node: TsNode,
  classes: string[],
  out: FoundFunction[],
  source: string,
  language: CodeLanguage,
): void {
  for (const child of node.namedChildren) {
    if (!child) continue;
    const fn =
      language === 'python'
        ? pythonFunction(child, classes, source)
        : jsFunction(child, classes, source, language);
    if (fn) out.push(fn);
    const className = classNameOf(child);
    // Functions nested inside functions are implementation details, not units to test.
    if (fn) continue;
    visit(child, className ? [...classes, className] : classes, out, source, language);
  }
}

function classNameOf(node: TsNode): string | undefined {
  if (node.type === 'class_definition' || node.type === 'class_declaration' || node.type === 'class') {
    return node.childForFieldName('name')?.text;
  }
  return undefined;
}

function base(
  node: TsNode,
  outer: TsNode,
  name: string,
  classes: string[],
  language: CodeLanguage,
  source: string,
) {
  return {
    name,
    qualifiedName: [...classes, name].join('.'),
    language,
    startLine: outer.startPosition.row,
    endLine: outer.endPosition.row,
    startIndex: outer.startIndex,
    endIndex: outer.endIndex,
    nameLine: (node.childForFieldName('name') ?? node).startPosition.row,
    source: source.slice(outer.startIndex, outer.endIndex),
  };
}

function pythonFunction(node: TsNode, classes: string[], source: string): FoundFunction | undefined {
  const outer = node;
  let def = node;
  if (node.type === 'decorated_definition') {
    const inner = node.childForFieldName('definition');
    if (!inner || inner.type !== 'function_definition') return undefined;
    def = inner;
  } else if (node.type !== 'function_definition') {
    return undefined;
  }
  const name = def.childForFieldName('name')?.text;
  if (!name) return undefined;
  const body = def.childForFieldName('body');
  const signature = source
    .slice(def.startIndex, body ? body.startIndex : def.endIndex)
    .trim()
    .replace(/:\s*$/, '');
  const first = body?.namedChildren[0];
  let docstring: string | undefined;
  if (first?.type === 'expression_statement' && first.namedChildren[0]?.type === 'string') {
    docstring = first.namedChildren[0].text
      .replace(/^[rRbBuU]*("""|'''|"|')/, '')
      .replace(/("""|'''|"|')$/, '')
      .trim();
  }
  return {
    ...base(def, outer, name, classes, 'python', source),
    kind: classes.length ? 'method' : 'function',
    signature,
    docstring,
    isAsync: /^async\b/.test(def.text),
    exported: !name.startsWith('_'),
  };
}

function jsFunction(
  node: TsNode,
  classes: string[],
  source: string,
  language: CodeLanguage,
): FoundFunction | undefined {
  let outer = node;
  let target = node;
  let exported = false;
  if (node.type === 'export_statement') {
    const decl = node.childForFieldName('declaration') ?? node.namedChildren.find((c) => c !== null) ?? null;
    if (!decl) return undefined;
    target = decl;
    exported = true;
  }
  if (
    target.type === 'function_declaration' ||
    target.type === 'generator_function_declaration' ||
    target.type === 'method_definition'
  ) {
    const name = target.childForFieldName('name')?.text;
    if (!name || name === 'constructor') return undefined;
    const body = target.childForFieldName('body');
    return {
      ...base(target, outer, name, classes, language, source),
      kind: target.type === 'method_definition' ? 'method' : 'function',
      signature: source.slice(target.startIndex, body ? body.startIndex : target.endIndex).trim(),
      docstring: leadingJsDoc(outer, source),
      isAsync: /^(export\s+)?async\b/.test(outer.text),
      exported,
    };
  }
  if (target.type === 'lexical_declaration' || target.type === 'variable_declaration') {
    for (const declarator of target.namedChildren) {
      const value = declarator?.childForFieldName('value');
      if (
        !declarator ||
        !value ||
        (value.type !== 'arrow_function' && value.type !== 'function_expression' && value.type !== 'function')
      )
        continue;
      const name = declarator.childForFieldName('name')?.text;
      if (!name) continue;
      const body = value.childForFieldName('body');
      outer = node;
      return {
        ...base(declarator, outer, name, classes, language, source),
        kind: 'arrow',
        signature: source.slice(target.startIndex, body ? body.startIndex : value.endIndex).trim(),
        docstring: leadingJsDoc(outer, source),
        isAsync: /\basync\b/.test(source.slice(value.startIndex, body ? body.startIndex : value.endIndex)),
        exported,
      };
    }
  }
  return undefined;
}

function leadingJsDoc(node: TsNode, source: string): string | undefined {
  const prev = node.previousNamedSibling;
  if (prev?.type !== 'comment' || !prev.text.startsWith('/**')) return undefined;
  // Only a comment that ends right above the function documents it.
  if (source.slice(prev.endIndex, node.startIndex).trim() !== '') return undefined;
  return prev.text
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, ''))
    .join('\n')
    .trim();
}
