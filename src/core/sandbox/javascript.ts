/** Files and command line of a node:test run: one file per test, each holding the module under test. */
import type { JunitCase } from './junit';
import { transpiled } from './typescript';
import type { SandboxLanguage, SandboxTest, TestStatus } from './types';

export const ESM_SYNTAX = /^\s*(import\s[\s\S]*?from\s|import\s*['"{*]|export\s)/m;

/**
 * The title a test runs under: its file and its name. node's report names no file, so the title
 * carries it, and a test the code under test registers (in any file, under any name) reports on
 * nothing.
 */
export const jsNodeId = (file: string, name: string) => `${file}::${name}`;

const TITLE = /(\b(?:test|it)\s*\(\s*)(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)/;

/** `source` (one `test('title', ...)` call) with its title replaced by `title`. */
function retitled(source: string, title: string): string {
  return source.replace(TITLE, (_m, head: string) => `${head}${JSON.stringify(title)}`);
}

/** One file per test, each holding the module under test (types stripped for TypeScript). */
export function jsSuiteFiles(
  language: SandboxLanguage,
  code: string,
  tests: SandboxTest[],
): { files: Record<string, string>; testFiles: string[]; unreadable: Map<number, string> } {
  const esm = language === 'typescript' || ESM_SYNTAX.test(code);
  const ext = esm ? '.mjs' : '.cjs';
  const header = esm
    ? "import { test, it, describe } from 'node:test';\nimport assert from 'node:assert/strict';\n"
    : "const { test, it, describe } = require('node:test');\nconst assert = require('node:assert/strict');\n";
  // Test code that imports node:test itself would clash with the header; those lines are dropped.
  const strip = (s: string) =>
    s.replace(
      /^.*require\(['"]node:(test|assert(\/strict)?)['"]\).*$|^[ \t]*import .* from ['"]node:(test|assert(\/strict)?)['"];?$/gm,
      '',
    );
  const files: Record<string, string> = {};
  // Why a test's file has no JavaScript (TypeScript the compiler cannot read), told by the host:
  // node's report of a file that fails to load does not carry the error.
  const unreadable = new Map<number, string>();
  const testFiles = tests.map((t, i) => {
    const file = `test_${String(i).padStart(4, '0')}${ext}`;
    const source = retitled(strip(t.source), jsNodeId(file, t.name));
    const out = transpiled(`${header}\n${strip(code)}\n\n${source}\n`, language);
    files[file] = out.js;
    if (out.unreadable) unreadable.set(i, out.unreadable);
    return file;
  });
  return { files, testFiles, unreadable };
}

/**
 * node's test runner. Tests run in child processes whose output the runner folds into the report,
 * so the runner's stdout carries the JUnit report alone: it is the results channel, never a file.
 */
export function nodeTestArgs(inDir: string, files: string[], timeoutMs: number, memoryMb: number): string[] {
  return [
    `--max-old-space-size=${memoryMb}`,
    '--test',
    '--test-concurrency=1',
    `--test-timeout=${timeoutMs}`,
    '--test-reporter=junit',
    '--test-reporter-destination=stdout',
    ...files.map((f) => `${inDir}/${f}`),
  ];
}

export function jsStatus(c: JunitCase, isFileLevel: boolean): TestStatus {
  if (c.outcome === 'passed') return 'passed';
  const text = `${c.message}\n${c.details}`;
  if (/timed out after/i.test(text)) return 'timeout';
  if (isFileLevel) return 'uncollectable';
  return c.outcome === 'failure' ? 'failed' : 'error';
}
