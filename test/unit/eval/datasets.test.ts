import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { DatasetError, readCodeTasks, readMathProblems } from '../../../src/core/eval/datasets';
import { runSuite } from '../../../src/core/sandbox/index';
import { scratchDir } from '../scratchDir';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const MBPP = path.join(ROOT, 'test', 'fixtures', 'eval', 'mbpp-tiny.jsonl');
const tmp = () => scratchDir('stepwise-eval-data-');

test('an MBPP file is read as tasks: the function the first assertion calls, its reference and its own tests', async () => {
  const { items, format, problems } = readCodeTasks(MBPP);
  assert.equal(format, 'mbpp');
  assert.deepEqual(problems, []);
  assert.deepEqual(
    items.map((t) => [t.id, t.entryPoint]),
    [
      ['MBPP/9001', 'count_vowels'],
      ['MBPP/9002', 'second_largest'],
      ['MBPP/9003', 'merge_sorted'],
      ['MBPP/9004', 'is_leap'],
    ],
  );
  assert.ok(!items[0].referenceCode.includes('\r'), 'Windows line ends are normalised');
  assert.match(items[3].description, /leap year/);
  // The dataset's own tests, as built, pass on each reference in the real sandbox.
  const result = await runSuite({
    language: 'python',
    code: '',
    tests: items.map((t, i) => ({ name: `t${i}`, source: `${t.referenceCode}\n\n${t.officialTest}` })),
  });
  assert.deepEqual(
    result.verdicts.map((v) => v.status),
    ['passed', 'passed', 'passed', 'passed'],
  );
  // ... and fail on a wrong implementation.
  const wrong = await runSuite({
    language: 'python',
    code: '',
    tests: [
      { name: 'w', source: `def is_leap(year):\n    return year % 4 == 0\n\n${items[3].officialTest}` },
    ],
  });
  assert.equal(wrong.verdicts[0].status, 'failed');
});

test('HumanEval lines (gzipped) become tasks whose official test calls check(entry_point)', () => {
  const dir = tmp();
  const file = path.join(dir, 'he.jsonl.gz');
  const line = {
    task_id: 'HumanEval/x',
    prompt: 'def add(a, b):\n    """Add two numbers."""\n',
    canonical_solution: '    return a + b\n',
    test: 'def check(candidate):\n    assert candidate(1, 2) == 3\n',
    entry_point: 'add',
  };
  fs.writeFileSync(file, zlib.gzipSync(JSON.stringify(line) + '\nnot json\n'));
  const { items, problems, format } = readCodeTasks(file);
  assert.equal(format, 'humaneval');
  assert.equal(items[0].description, 'Add two numbers.');
  assert.match(items[0].officialTest, /def test_official\(\):\n {4}check\(add\)/);
  assert.deepEqual(problems, [{ line: 2, reason: 'not JSON' }]);
});

test('MATH lines need problem and answer; bad lines are reported by number, an empty file is an error', () => {
  const dir = tmp();
  const file = path.join(dir, 'math.jsonl');
  fs.writeFileSync(
    file,
    [
      JSON.stringify({ problem: 'What is 1+1?', answer: '2', unique_id: 'a', level: 1 }),
      JSON.stringify({ problem: 'No answer' }),
      JSON.stringify({ problem: 'Again?', answer: '3', unique_id: 'a' }),
    ].join('\n'),
  );
  const { items, problems } = readMathProblems(file);
  assert.deepEqual(
    items.map((p) => p.id),
    ['a', 'a#line-3'],
  );
  assert.equal(problems[0].line, 2);
  fs.writeFileSync(file, JSON.stringify({ text: 'x' }) + '\n');
  assert.throws(
    () => readMathProblems(file),
    (e: unknown) => e instanceof DatasetError && !!e.hint,
  );
  assert.throws(() => readMathProblems(path.join(dir, 'absent.jsonl'), 'hint'), /no data file/);
});
