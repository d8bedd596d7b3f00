/**
 * The tests one stage of the test writer contributes to the accumulated suite: its assertion
 * lines (judged by the oracle, forge-proof), or, when it wrote none, its whole test functions
 * (judged in-process). A test already in the suite, from any stage, is never admitted again.
 */
import {
  parseAssertionLines,
  type AssertionLanguage,
  type AssertionTest,
  type RejectedLine,
} from './assertions';
import { extractTests, type GeneratedTest } from './extractTests';
import type { CodeLanguage } from './functions';
import { signatureProblems } from './signatureCheck';

export function assertionLanguage(language: CodeLanguage): AssertionLanguage {
  return language === 'tsx' ? 'typescript' : language;
}

/** A runnable test function around one assertion line, for the Test Explorer and "Insert tests". */
export function testFunctionFor(assertion: AssertionTest, name: string): string {
  if (assertion.language === 'python') {
    const fn = assertion.functionName.replace(/\W/g, '_');
    return `def test_${fn}_${name}():\n    ${assertion.line}\n`;
  }
  const awaits = /\bawait\b/.test(assertion.line);
  return `test(${JSON.stringify(assertion.line)}, ${awaits ? 'async ' : ''}() => {\n  ${assertion.line}\n});\n`;
}

/** What makes two whole test functions the same test: their body, whatever they are called. */
function functionKey(test: GeneratedTest): string {
  const body = test.source.replace(
    /^[ \t]*(?:async\s+)?def\s+\w+|^[ \t]*(?:test|it)\s*\(\s*(['"`]).*?\1/m,
    '',
  );
  return `function:${body.replace(/\s+/g, ' ').trim()}`;
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let i = 2; taken.has(candidate); i++) candidate = `${name}_${i}`;
  taken.add(candidate);
  return candidate;
}

export async function testsFromStage(
  output: string,
  /** With its signature, calls that cannot match it are rejected before they run. */
  target: { name: string; language: CodeLanguage; signature?: string; kind?: string; docstring?: string },
  stage: number,
  seen: Set<string>,
  taken: Set<string>,
  /** Most tests the stage may add; the rest are rejected as over budget. */
  budget = Infinity,
): Promise<{ tests: GeneratedTest[]; rejected: RejectedLine[] }> {
  const parsed = await parseAssertionLines(output, assertionLanguage(target.language), target.name);
  const rejected = [...parsed.rejected];
  const tests: GeneratedTest[] = [];
  const overBudget = { reason: `over the stage's budget of ${budget} tests` };
  const problems = target.signature
    ? await signatureProblems(
        { ...target, signature: target.signature },
        parsed.tests.map((a) => a.call),
      )
    : [];
  for (const [i, assertion] of parsed.tests.entries()) {
    const problem = problems[i];
    if (problem) {
      rejected.push({ line: assertion.line, reason: `does not match the signature: ${problem}` });
      continue;
    }
    if (seen.has(assertion.key)) {
      rejected.push({ line: assertion.line, reason: 'duplicate of a test already in the suite' });
      continue;
    }
    if (tests.length >= budget) {
      rejected.push({ line: assertion.line, ...overBudget });
      continue;
    }
    seen.add(assertion.key);
    const name = unique(`s${stage}_${tests.length + 1}`, taken);
    tests.push({ name, stage, source: testFunctionFor(assertion, name), assertion: { ...assertion, name } });
  }
  if (parsed.tests.length) return { tests, rejected };
  // No assertion line at all: the test writer wrote whole test functions; they run in-process.
  const duplicates: RejectedLine[] = [];
  for (const test of await extractTests(output, target.language, stage, taken)) {
    const key = functionKey(test);
    if (seen.has(key)) {
      duplicates.push({
        line: test.source.split('\n')[0],
        reason: 'duplicate of a test already in the suite',
      });
      continue;
    }
    if (tests.length >= budget) {
      duplicates.push({ line: test.source.split('\n')[0], ...overBudget });
      continue;
    }
    seen.add(key);
    tests.push(test);
  }
  // The assertion parser's complaints about the lines of whole functions are noise then.
  return { tests, rejected: tests.length ? duplicates : [...rejected, ...duplicates] };
}
