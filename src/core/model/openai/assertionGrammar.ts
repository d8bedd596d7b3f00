/**
 * The assertion-line grammar (assertionLines.ts) as GBNF, the grammar format llama.cpp servers
 * take in `grammar` and vLLM's xgrammar backend accepts in `structured_outputs.grammar`. A server
 * holds the model to it while decoding; what the grammar cannot say (no repeated line, a token
 * budget per line) is checked on the text that comes back.
 */
import { assertionPrefixes } from '../assertionLines';
import type { AssertionLines } from '../plan';

/** A GBNF string literal. */
export function gbnfLiteral(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;
}

export function assertionGrammar(
  spec: Pick<AssertionLines, 'language' | 'functionName' | 'maxLines'>,
): string {
  const js = spec.language !== 'python';
  const [first, second] = assertionPrefixes(spec).map(gbnfLiteral);
  // Balanced brackets and whole strings; no comments, continuations or statement separators
  // (JavaScript lines go without `/` altogether: a grammar cannot cheaply tell division from `//`).
  const plain = js ? `[^()\\[\\]{}"'\`;\\\\\\n/]` : `[^()\\[\\]{}"'#;\\\\\\n]`;
  const strings = [
    `"\\"" ([^"\\\\\\n] | "\\\\" [^\\n])* "\\""`,
    `"'" ([^'\\\\\\n] | "\\\\" [^\\n])* "'"`,
    ...(js ? ['"`" ([^`\\\\\\n] | "\\\\" [^\\n])* "`"'] : []),
  ];
  const rules = [
    `root ::= (line "\\n"){1,${spec.maxLines}} "\\n"?`,
    js
      ? `line ::= (${first} | ${second}) expr ")" expr "," expr ")" ";"?`
      : `line ::= (${first} | ${second}) expr ")" expr`,
    `expr ::= (plain | str | "(" expr ")" | "[" expr "]" | "{" expr "}")*`,
    `plain ::= ${plain}`,
    `str ::= ${strings.join(' | ')}`,
  ];
  return `${rules.join('\n')}\n`;
}
