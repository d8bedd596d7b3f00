/**
 * The assertion-line grammar as GBNF, the grammar format llama.cpp servers take in `grammar` and
 * vLLM's xgrammar backend accepts in `structured_outputs.grammar`. In full it describes
 * expressions, not just balanced brackets, so a server holds the model to lines that parse: one
 * assertion on the function per line, at most `maxLines`, a blank line to end; a line may end with
 * a comment (see assertionLines.ts for why). What a grammar cannot say (no repeated line, a token
 * budget per line) is checked on the text that comes back.
 */
import type { AssertionLines } from '../plan';

/** A GBNF string literal. */
export function gbnfLiteral(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;
}

/**
 * Rules both languages share. Spaces are allowed only after a comma and around a binary
 * operator: a grammar that allows them everywhere is ambiguous at every space, and llama.cpp
 * tracks each reading separately (decoding slowed tenfold in a trial).
 */
const COMMON = [
  'number ::= [0-9]+ ("." [0-9]+)? ([eE] [-+]? [0-9]+)?',
  `quoted ::= "\\"" ([^"\\\\\\n] | "\\\\" [^\\n])* "\\"" | "'" ([^'\\\\\\n] | "\\\\" [^\\n])* "'"`,
  'comma ::= "," " "?',
  'op ::= " "? binop " "?',
];

const PYTHON = [
  'expr ::= "lambda" (" " name ("," " "? name)*)? ": " expr | unary (op unary)*',
  'unary ::= ("not " | "-" | "+" | "~")* atom trailer*',
  'atom ::= name | number "j"? | string (" "? string)* | "(" args? ")" | "[" args? "]" | "{" items? "}"',
  'string ::= [rRbBuUfF]? [rRbB]? quoted',
  'trailer ::= "(" args? ")" | "[" slice (comma slice)* "]" | "." name',
  'slice ::= expr (":" expr? (":" expr?)?)? | ":" expr? (":" expr?)?',
  // One reading per argument: a keyword argument is an expression followed by "=", a
  // comprehension an expression followed by " for".
  'args ::= arg (comma arg)* ","?',
  'arg ::= ("*" | "**")? expr ("=" expr | " for " name (comma name)* " in " expr (" if " expr)*)?',
  'items ::= expr (": " expr)? (comma expr (": " expr)?)* ","?',
  'binop ::= "+" | "-" | "*" | "/" | "//" | "%" | "**" | "@" | "&" | "|" | "^" | "<<" | ">>" | "and" | "or" | "==" | "!=" | "<" | ">" | "<=" | ">=" | "is" | "is not" | "in" | "not in"',
  'name ::= [A-Za-z_] [A-Za-z0-9_]*',
];

const JAVASCRIPT = [
  'expr ::= unary (op unary)* (" ? " expr " : " expr)? | params " => " expr',
  'params ::= name | "(" (name (comma name)*)? ")"',
  'unary ::= ("!" | "-" | "+" | "~" | "typeof " | "new " | "void ")* atom trailer*',
  'atom ::= name | number "n"? | quoted | template | "(" expr ")" | "[" args? "]" | "{" (" "? props " "?)? "}"',
  `template ::= "\`" ([^\`\\\\\\n$] | "\\\\" [^\\n] | "$" [^{\`\\n])* "\`"`,
  'trailer ::= "(" args? ")" | "[" expr "]" | "." name | "?." name',
  'args ::= arg (comma arg)* ","?',
  'arg ::= "..."? expr',
  'props ::= prop (comma prop)* ","?',
  'prop ::= (name | quoted | number | "[" expr "]") ": " expr | name | "..." expr',
  'binop ::= "+" | "-" | "*" | "/" | "%" | "**" | "===" | "!==" | "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||" | "??" | "&" | "|" | "^" | "<<" | ">>" | ">>>" | "instanceof" | "in"',
  'name ::= [A-Za-z_$] [A-Za-z0-9_$]*',
];

/**
 * How much of an assertion line a server's grammar describes. `expressions`: the whole line
 * parses. `lines`: only its opening (the assert and the call of the function), the rest being any
 * text to the end of the line. llama-cpp-python checks a grammar against every token of the
 * vocabulary before sampling, which made the expression grammar cost 228 ms per token against 22
 * for the line grammar (bench/results/grammar-cost.json); llama.cpp's own server and vLLM check
 * only the sampled token or a precompiled mask. Lines the looser grammar lets through are parsed
 * on the text that comes back either way.
 */
export type AssertionGrammarDetail = 'expressions' | 'lines';

type GrammarSpec = Pick<AssertionLines, 'language' | 'functionName' | 'maxLines'>;

export function assertionGrammar(spec: GrammarSpec, detail: AssertionGrammarDetail = 'expressions'): string {
  return detail === 'lines' ? lineGrammar(spec) : expressionGrammar(spec);
}

function lineGrammar(spec: GrammarSpec): string {
  const f = gbnfLiteral(spec.functionName);
  const opening =
    spec.language === 'python'
      ? `"assert " ("not ")? ${f} "("`
      : `"assert." ("deepStrictEqual" | "strictEqual") "(" ${f} "("`;
  const rules = [`root ::= (line "\\n"){1,${spec.maxLines}} "\\n"?`, `line ::= ${opening} [^\\n]+`];
  return `${rules.join('\n')}\n`;
}

function expressionGrammar(spec: GrammarSpec): string {
  const f = gbnfLiteral(spec.functionName);
  const call = `${f} "(" args? ")" trailer* (op unary)*`;
  const line =
    spec.language === 'python'
      ? `line ::= "assert " ("not ")? ${call} (comma expr)? (" "* "#" [^\\n]*)?`
      : `line ::= "assert." ("deepStrictEqual" | "strictEqual") "(" ${call} comma expr (comma expr)? ")" ";"? (" "* "//" [^\\n]*)?`;
  const rules = [
    `root ::= (line "\\n"){1,${spec.maxLines}} "\\n"?`,
    line,
    ...(spec.language === 'python' ? PYTHON : JAVASCRIPT),
    ...COMMON,
  ];
  return `${rules.join('\n')}\n`;
}
