/**
 * The function's part of every prompt of the tests flow (the stages, the test writer and the
 * independent implementation samples): its specification and the placeholders the templates share.
 */
import type { CodeLanguage, FoundFunction } from './functions';

const ASSERTION_FORM: Record<CodeLanguage, (fn: string) => string> = {
  python: (fn) => `\`assert ${fn}(...) == expected\` (or \`with pytest.raises(SomeError): ${fn}(...)\`)`,
  javascript: (fn) =>
    `\`assert.deepStrictEqual(${fn}(...), expected);\` (or \`assert.throws(() => ${fn}(...), TypeError);\`)`,
  typescript: (fn) =>
    `\`assert.deepStrictEqual(${fn}(...), expected);\` (or \`assert.throws(() => ${fn}(...), TypeError);\`)`,
  tsx: (fn) =>
    `\`assert.deepStrictEqual(${fn}(...), expected);\` (or \`assert.throws(() => ${fn}(...), TypeError);\`)`,
};

const FRAMEWORK: Record<CodeLanguage, string> = {
  python: 'pytest',
  javascript: "node:test (test() from 'node:test', assert from 'node:assert/strict')",
  typescript: "node:test (test() from 'node:test', assert from 'node:assert/strict')",
  tsx: "node:test (test() from 'node:test', assert from 'node:assert/strict')",
};

const LANGUAGE_NAME: Record<CodeLanguage, string> = {
  python: 'Python',
  javascript: 'JavaScript',
  typescript: 'TypeScript',
  tsx: 'TypeScript',
};

/** The function's part of every stage prompt: what the templates' placeholders are filled with. */
export type PromptFunction = Pick<FoundFunction, 'name' | 'language' | 'signature' | 'docstring'>;

/** The placeholders every stage template shares, filled for one function. */
export function functionPromptValues(target: PromptFunction): Record<string, string> {
  return {
    spec: specOf(target),
    language: LANGUAGE_NAME[target.language],
    framework: FRAMEWORK[target.language],
    assertion_form: ASSERTION_FORM[target.language](target.name),
    function_name: target.name,
  };
}

/** The specification the generator reasons from: signature and documentation, not the body. */
export function specOf(fn: Pick<FoundFunction, 'signature' | 'docstring'>): string {
  return [
    fn.signature,
    fn.docstring
      ? `Documentation: ${fn.docstring}`
      : 'No documentation: infer the intent from the name and parameters.',
  ].join('\n');
}
