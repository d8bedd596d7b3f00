import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findFunctions, languageForFile } from '../../../src/core/tests/functions';

test('finds Python functions, decorated functions and methods, not nested helpers', async () => {
  const src = [
    'import functools',
    '',
    '@functools.cache',
    'def fib(n: int) -> int:',
    '    """Return the n-th Fibonacci number."""',
    '    def helper(x):',
    '        return x',
    '    return n if n < 2 else fib(n - 1) + fib(n - 2)',
    '',
    'class Interval:',
    '    def overlaps(self, other,',
    '                 strict=False):',
    '        return True',
    '',
    'async def fetch(url):',
    '    return url',
  ].join('\n');
  const fns = await findFunctions(src, 'python');
  assert.deepEqual(
    fns.map((f) => [f.qualifiedName, f.kind, f.nameLine]),
    [
      ['fib', 'function', 3],
      ['Interval.overlaps', 'method', 10],
      ['fetch', 'function', 14],
    ],
  );
  assert.equal(fns[0].startLine, 2, 'a decorated function starts at its decorator');
  assert.equal(fns[0].docstring, 'Return the n-th Fibonacci number.');
  assert.equal(fns[0].signature, 'def fib(n: int) -> int');
  assert.match(fns[1].signature, /strict=False\)$/);
  assert.equal(fns[2].isAsync, true);
});

test('finds TypeScript declarations, exported arrows and class methods', async () => {
  const src = [
    '/** Adds two numbers. */',
    'export function add(a: number, b: number): number {',
    '  return a + b;',
    '}',
    'const twice = (x: number) => x * 2;',
    'class Stack<T> {',
    '  constructor() {}',
    '  push(item: T): void {}',
    '}',
    'let notAFunction = 3;',
  ].join('\n');
  const fns = await findFunctions(src, 'typescript');
  assert.deepEqual(
    fns.map((f) => [f.qualifiedName, f.kind, f.exported]),
    [
      ['add', 'function', true],
      ['twice', 'arrow', false],
      ['Stack.push', 'method', false],
    ],
  );
  assert.equal(fns[0].docstring, 'Adds two numbers.');
});

test('source with syntax errors still yields the functions that parse', async () => {
  const fns = await findFunctions('def ok(a):\n    return a\n\ndef broken(:\n', 'python');
  assert.ok(fns.some((f) => f.name === 'ok'));
});

test('languageForFile maps extensions', () => {
  assert.equal(languageForFile('a/b.py'), 'python');
  assert.equal(languageForFile('x.tsx'), 'tsx');
  assert.equal(languageForFile('x.mjs'), 'javascript');
  assert.equal(languageForFile('x.rs'), undefined);
});
