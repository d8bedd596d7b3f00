/** Files and command line of a node:test run: one file per test, each holding the module under test. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JunitCase } from './junit';
import type { SandboxLanguage, SandboxTest, TestStatus } from './types';

const ESM_SYNTAX = /^\s*(import\s[\s\S]*?from\s|import\s*['"{*]|export\s)/m;

export function writeJsSuite(
  dir: string,
  language: SandboxLanguage,
  code: string,
  tests: SandboxTest[],
): string[] {
  const esm = language === 'typescript' || ESM_SYNTAX.test(code);
  const ext = language === 'typescript' ? '.mts' : esm ? '.mjs' : '.cjs';
  const header = esm
    ? "import { test, it, describe } from 'node:test';\nimport assert from 'node:assert/strict';\n"
    : "const { test, it, describe } = require('node:test');\nconst assert = require('node:assert/strict');\n";
  // Test code that imports node:test itself would clash with the header; those lines are dropped.
  const strip = (s: string) =>
    s.replace(
      /^.*require\(['"]node:(test|assert(\/strict)?)['"]\).*$|^\s*import .* from ['"]node:(test|assert(\/strict)?)['"];?$/gm,
      '',
    );
  return tests.map((t, i) => {
    const file = `test_${String(i).padStart(4, '0')}${ext}`;
    fs.writeFileSync(path.join(dir, file), `${header}\n${strip(code)}\n\n${strip(t.source)}\n`);
    return file;
  });
}

export function nodeTestArgs(files: string[], timeoutMs: number, memoryMb: number): string[] {
  return [
    `--max-old-space-size=${memoryMb}`,
    '--test',
    '--test-concurrency=1',
    `--test-timeout=${timeoutMs}`,
    '--test-reporter=junit',
    '--test-reporter-destination=report.xml',
    ...files,
  ];
}

export function jsStatus(c: JunitCase, isFileLevel: boolean): TestStatus {
  if (c.outcome === 'passed') return 'passed';
  const text = `${c.message}\n${c.details}`;
  if (/timed out after/i.test(text)) return 'timeout';
  if (isFileLevel) return 'uncollectable';
  return c.outcome === 'failure' ? 'failed' : 'error';
}
