/**
 * Hostile cases, issue 40 class 4: input nested deeper than any parser's stack. A 2,000-deep
 * assertion line and 20,000-deep generated TypeScript end in verdicts (a rejected line, an
 * uncollectable test) within the run's time bound, never "Maximum call stack size exceeded".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAssertionLines } from '../../../src/core/tests/assertions';
import { cli, scratch, verdicts } from './hostileHelpers';

const DEEP = 2000;
const deepLines = {
  python: [
    `assert f(1) == ${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
    `assert f(${'('.repeat(DEEP)}1${')'.repeat(DEEP)}) == 2`,
    `assert f(1) == ${'1 + '.repeat(DEEP)}1`,
    `assert f(1) == ${'- '.repeat(DEEP)}1`,
    'assert f(1) == 2',
  ],
  javascript: [
    `assert.deepStrictEqual(f(1), ${'['.repeat(DEEP)}${']'.repeat(DEEP)});`,
    `assert.strictEqual(f(${'('.repeat(DEEP)}1${')'.repeat(DEEP)}), 2);`,
    `assert.strictEqual(f(1), ${'1 + '.repeat(DEEP)}1);`,
    `assert.strictEqual(f(1), ${'- '.repeat(DEEP)}1);`,
    'assert.strictEqual(f(1), 2);',
  ],
};

for (const language of ['python', 'javascript', 'typescript'] as const) {
  test(`${language}: a 2,000-deep assertion line is rejected as nested too deeply, the others still parse`, async () => {
    const lines = deepLines[language === 'python' ? 'python' : 'javascript'];
    const parsed = await parseAssertionLines(lines.join('\n'), language, 'f');
    assert.deepEqual(
      parsed.tests.map((t) => t.line),
      [lines[4]],
    );
    assert.equal(parsed.rejected.length, 4);
    for (const r of parsed.rejected) assert.match(r.reason, /nested too deeply/);
  });
}

async function sandbox(files: Record<string, string>, args: string[]) {
  const s = scratch();
  try {
    const paths = Object.fromEntries(Object.entries(files).map(([name, text]) => [name, s.file(name, text)]));
    const r = await cli(
      ['sandbox', ...args.map((a) => paths[a] ?? a), '--json', '--suite-timeout-ms', '60000'],
      { limitMs: 90_000 },
    );
    assert.doesNotMatch(r.stderr, /Maximum call stack/);
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    return verdicts(r);
  } finally {
    s.cleanup();
  }
}

test('the CLI judges the other lines when one assertion line is 2,000 deep (Python, JavaScript)', async () => {
  const py = await sandbox(
    { 'f.py': 'def f(x):\n    return x + 1\n', 't.txt': deepLines.python.join('\n') },
    ['--code', 'f.py', '--assertions', 't.txt', '--function', 'f', '--runs', '1'],
  );
  assert.deepEqual(py.statuses, ['passed']);
  const rejected = py.raw.rejected as { reason: string }[];
  assert.equal(rejected.length, 4);
  assert.ok(rejected.every((r) => /nested too deeply/.test(r.reason)));
  const js = await sandbox(
    { 'f.js': 'function f(x) {\n  return x + 1;\n}\n', 't.txt': deepLines.javascript.join('\n') },
    ['--code', 'f.js', '--assertions', 't.txt', '--function', 'f', '--runs', '1'],
  );
  assert.deepEqual(js.statuses, ['passed']);
});

const DEEP_TS = `export function f(x: number): number {\n  return ${'('.repeat(20_000)}x${')'.repeat(20_000)} + 1;\n}\n`;

test('20,000-deep TypeScript under test ends in uncollectable verdicts (assertions and test files)', async () => {
  const oracle = await sandbox({ 'f.ts': DEEP_TS, 't.txt': 'assert.strictEqual(f(1), 2);\n' }, [
    '--code',
    'f.ts',
    '--assertions',
    't.txt',
    '--function',
    'f',
    '--runs',
    '1',
  ]);
  assert.deepEqual(oracle.statuses, ['uncollectable']);
  assert.match(oracle.outputs[0], /nested too deeply/);
  const inProcess = await sandbox(
    {
      'f.ts': DEEP_TS,
      't.test.ts': "test('adds one', () => {\n  assert.strictEqual(f(1), 2);\n});\n",
    },
    ['--code', 'f.ts', '--tests', 't.test.ts'],
  );
  assert.deepEqual(inProcess.statuses, ['uncollectable']);
  assert.match(inProcess.outputs[0], /nested too deeply/);
});
