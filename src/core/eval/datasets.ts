/**
 * Reading evaluation data: MATH-500-style problems (`problem`, `answer`), HumanEval tasks and
 * MBPP tasks (`text`, `code`, `test_list`), as JSONL, gzipped or not. Bad lines are reported with
 * their line numbers and skipped; a file with no usable line is an error that says what was expected.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';

export class DatasetError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'DatasetError';
  }
}

export interface LineProblem {
  line: number;
  reason: string;
}

/** The lines of a JSONL file as objects; `.gz` is recognised by its magic bytes, not its name. */
export function readJsonl(
  file: string,
  missingHint?: string,
): { rows: { line: number; value: Record<string, unknown> }[]; problems: LineProblem[] } {
  if (!fs.existsSync(file))
    throw new DatasetError(
      `There is no data file at ${file}.`,
      missingHint ?? 'Pass --data PATH to a JSONL file.',
    );
  let bytes = fs.readFileSync(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = zlib.gunzipSync(bytes);
    } catch (err) {
      throw new DatasetError(`${file} looks gzipped but cannot be decompressed: ${(err as Error).message}.`);
    }
  }
  const rows: { line: number; value: Record<string, unknown> }[] = [];
  const problems: LineProblem[] = [];
  bytes
    .toString('utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      try {
        const value = JSON.parse(text);
        if (value && typeof value === 'object' && !Array.isArray(value)) rows.push({ line: i + 1, value });
        else problems.push({ line: i + 1, reason: 'not a JSON object' });
      } catch {
        problems.push({ line: i + 1, reason: 'not JSON' });
      }
    });
  return { rows, problems };
}

export const MISSING_DATA_HINTS = {
  prove:
    'MATH-500 is not shipped with Stepwise: pass --data PATH to a JSONL file with "problem" and "answer" fields (e.g. MATH-500.jsonl from HuggingFaceH4/MATH-500).',
  tests:
    'HumanEval is not shipped with Stepwise (MIT licence): pass --data PATH to HumanEval.jsonl.gz, or to an MBPP JSONL file (text, code, test_list).',
  prm: 'Pass --labels FILE: a Stepwise labels.jsonl (.stepwise/labels/labels.jsonl) or a PRM800K phase JSONL.',
} as const;

/** Fails early, before any model is loaded, when a data file is not there. */
export function requireDataFile(file: string, kind: keyof typeof MISSING_DATA_HINTS): void {
  if (!fs.existsSync(file) || !fs.statSync(file).isFile())
    throw new DatasetError(`There is no data file at ${file}.`, MISSING_DATA_HINTS[kind]);
}

const str = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

export interface MathProblem {
  id: string;
  problem: string;
  answer: string;
  subject?: string;
  level?: number;
}

export function readMathProblems(
  file: string,
  missingHint?: string,
): { items: MathProblem[]; problems: LineProblem[] } {
  const { rows, problems } = readJsonl(file, missingHint);
  const items: MathProblem[] = [];
  const seen = new Set<string>();
  for (const { line, value } of rows) {
    if (!str(value.problem) || !str(value.answer)) {
      problems.push({ line, reason: 'needs string fields "problem" and "answer"' });
      continue;
    }
    let id = str(value.unique_id) ? value.unique_id : str(value.id) ? value.id : `line-${line}`;
    if (seen.has(id)) id = `${id}#line-${line}`;
    seen.add(id);
    items.push({
      id,
      problem: value.problem,
      answer: value.answer,
      subject: str(value.subject) ? value.subject : undefined,
      level: typeof value.level === 'number' ? value.level : undefined,
    });
  }
  if (!items.length)
    throw new DatasetError(
      `${file} holds no MATH-style problem (${problems.length} bad line(s)${problems[0] ? `; line ${problems[0].line}: ${problems[0].reason}` : ''}).`,
      'Each line must be a JSON object with "problem" and "answer" strings, as in MATH-500.',
    );
  return { items, problems };
}

/** A function to write tests for, with its reference implementation and the dataset's own tests. */
export interface CodeTask {
  id: string;
  format: 'humaneval' | 'mbpp';
  /** The function's name. */
  entryPoint: string;
  /** A module defining the reference implementation. */
  referenceCode: string;
  /**
   * What the function should do, in words: the docstring for HumanEval (with its examples); for
   * MBPP `text` and, as MBPP's own prompt format shows its tests, the first test as an example.
   */
  description: string;
  /** The dataset's own tests as one pytest function body source (`def test_official(): ...`). */
  officialTest: string;
}

export function readCodeTasks(
  file: string,
  missingHint?: string,
): { items: CodeTask[]; problems: LineProblem[]; format: CodeTask['format'] } {
  const { rows, problems } = readJsonl(file, missingHint);
  const items: CodeTask[] = [];
  let format: CodeTask['format'] | null = null;
  for (const { line, value } of rows) {
    const task = humanEvalTask(value) ?? mbppTask(value, line);
    if (!task) {
      problems.push({
        line,
        reason:
          'neither HumanEval (task_id, prompt, canonical_solution, test, entry_point) nor MBPP (text, code, test_list)',
      });
      continue;
    }
    format ??= task.format;
    items.push(task);
  }
  if (!items.length || !format)
    throw new DatasetError(
      `${file} holds no HumanEval or MBPP task (${problems.length} bad line(s)).`,
      'HumanEval lines have task_id, prompt, canonical_solution, test and entry_point; MBPP lines have text, code and test_list.',
    );
  return { items, problems, format };
}

function humanEvalTask(v: Record<string, unknown>): CodeTask | null {
  if (
    !str(v.task_id) ||
    !str(v.prompt) ||
    typeof v.canonical_solution !== 'string' ||
    !str(v.test) ||
    !str(v.entry_point)
  )
    return null;
  const doc = /"""([\s\S]*?)"""|'''([\s\S]*?)'''/.exec(v.prompt);
  return {
    id: v.task_id,
    format: 'humaneval',
    entryPoint: v.entry_point,
    referenceCode: v.prompt + v.canonical_solution,
    description: (doc?.[1] ?? doc?.[2] ?? '').trim(),
    officialTest: `${v.test}\n\ndef test_official():\n    check(${v.entry_point})\n`,
  };
}

function mbppTask(v: Record<string, unknown>, line: number): CodeTask | null {
  if (
    !str(v.text) ||
    !str(v.code) ||
    !Array.isArray(v.test_list) ||
    !v.test_list.every(str) ||
    !v.test_list.length
  )
    return null;
  const tests = v.test_list as string[];
  // The function under test is the one the first official assertion calls.
  const called = /^\s*assert\s+(?:not\s+)?\(?\s*(?:set\(|math\.isclose\()?\s*([A-Za-z_]\w*)\s*\(/.exec(
    tests[0],
  );
  const defined = [...v.code.matchAll(/^def\s+([A-Za-z_]\w*)\s*\(/gm)].map((m) => m[1]);
  const entryPoint = called && defined.includes(called[1]) ? called[1] : defined[defined.length - 1];
  if (!entryPoint) return null;
  const setup = str(v.test_setup_code) ? `${v.test_setup_code}\n` : '';
  const body = tests.map((t) => `    ${t.trim()}`).join('\n');
  return {
    id: v.task_id === undefined ? `line-${line}` : `MBPP/${String(v.task_id)}`,
    format: 'mbpp',
    entryPoint,
    referenceCode: v.code.replace(/\r\n?/g, '\n'),
    // One example, as a docstring would give it; the other tests stay unseen.
    description: `${v.text.trim()}\nFor example:\n${tests[0].trim()}`,
    officialTest: `${setup}\ndef test_official():\n${body}\n`,
  };
}
