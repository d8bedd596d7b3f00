/**
 * The examples a specification gives, as tests. A docstring's examples are the one part of the
 * evidence the user wrote: a generated implementation that fails one has misread the task, so it
 * is set aside before it may vouch for any generated test (evidence.ts). Two forms are read:
 * doctest (`>>> f(1, 2)` with the expected value on the following lines) and one-line examples
 * (`f(1, 2) == 3`, `f(1, 2) ➞ 3`, `f(1, 2) -> 3`, `f(1, 2) => 3`, `f(1, 2) returns 3`). An example
 * read wrongly fails on every implementation and the user's function alike, and is then ignored.
 */
import type { GeneratedTest } from './extractTests';
import type { CodeLanguage } from './functions';
import { exampleAssertions } from './docstringExamples';
import { testsFromStage } from './stageTests';

export { exampleAssertions };

/** The stage number that marks an example test: it comes from the specification, not a stage. */
export const EXAMPLE_STAGE = 0;

/**
 * The specification's examples as runnable assertion tests (Python, where docstring examples are
 * written; none for other languages), named apart from the generated tests in `taken`. Lines that
 * do not parse as one assertion on the function, or do not match its signature, are dropped.
 */
export async function exampleTests(
  target: { name: string; language: CodeLanguage; signature?: string; kind?: string; docstring?: string },
  taken: Set<string>,
): Promise<GeneratedTest[]> {
  if (target.language !== 'python') return [];
  const lines = exampleAssertions(target.docstring, target.name);
  if (!lines.length) return [];
  const { tests } = await testsFromStage(lines.join('\n'), target, EXAMPLE_STAGE, new Set(), taken);
  return tests.filter((t) => t.assertion);
}
