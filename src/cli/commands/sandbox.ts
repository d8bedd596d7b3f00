import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { parseCommandLine, UsageError } from '../command';
import { runSuite } from '../../core/sandbox/index';
import type { SandboxLanguage, SandboxTest } from '../../core/sandbox/types';
import { extractTests } from '../../core/code/extractTests';

const USAGE =
  'stepwise sandbox --code FILE --tests FILE [--lang python|javascript|typescript] [--timeout-ms N] [--suite-timeout-ms N] [--memory-mb N] [--json]';

function languageOf(file: string): SandboxLanguage | undefined {
  const ext = path.extname(file);
  if (ext === '.py') return 'python';
  if (['.js', '.mjs', '.cjs'].includes(ext)) return 'javascript';
  if (['.ts', '.mts', '.cts'].includes(ext)) return 'typescript';
  return undefined;
}

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`--${name} must be a positive integer, not "${value}".`);
  return n;
}

/**
 * Runs a tests file against a code file in the sandbox. Exit code 0 whenever the sandbox itself
 * worked, whatever the tests did; the trainer calls this to score generated code and tests.
 */
export const sandboxCommand: CliCommand = {
  name: 'sandbox',
  summary: 'Run a tests file against a code file in the sandbox; one verdict per test',
  usage: USAGE,
  async run(argv) {
    const { values } = parseCommandLine(
      argv,
      {
        code: { type: 'string' },
        tests: { type: 'string' },
        lang: { type: 'string' },
        'timeout-ms': { type: 'string' },
        'suite-timeout-ms': { type: 'string' },
        'memory-mb': { type: 'string' },
        json: { type: 'boolean' },
      },
      false,
    );
    if (!values.code || !values.tests) throw new UsageError('--code and --tests are required.');
    const language = (values.lang as SandboxLanguage | undefined) ?? languageOf(values.code);
    if (!language || !['python', 'javascript', 'typescript'].includes(language)) {
      throw new UsageError(
        `Cannot tell the language of ${values.code}: pass --lang python, javascript or typescript.`,
      );
    }
    const read = (file: string) => {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError(
          `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
    };
    const code = read(values.code);
    const testsSource = read(values.tests);
    const tests: SandboxTest[] = await extractTests(
      testsSource,
      language === 'typescript' ? 'typescript' : language,
      0,
    );
    if (!tests.length) {
      throw new UsageError(
        `No tests found in ${values.tests}: write pytest functions named test_* (Python) or test('name', ...) calls (JavaScript/TypeScript).`,
      );
    }
    const result = await runSuite({
      language,
      code,
      tests,
      timeoutMs: positiveInt(values['timeout-ms'], 'timeout-ms'),
      suiteTimeoutMs: positiveInt(values['suite-timeout-ms'], 'suite-timeout-ms'),
      memoryMb: positiveInt(values['memory-mb'], 'memory-mb'),
    });
    if (values.json) {
      process.stdout.write(
        JSON.stringify(
          {
            verdicts: result.verdicts.map((v) => ({
              name: v.name,
              status: v.status,
              output: v.output,
              durationMs: v.durationMs,
            })),
            summary: result.summary,
            isolation: result.isolation,
          },
          null,
          2,
        ) + '\n',
      );
    } else {
      for (const v of result.verdicts) process.stdout.write(`${v.status.padEnd(13)} ${v.name}\n`);
      const s = result.summary;
      process.stdout.write(
        `\n${s.passed} passed, ${s.failed} failed, ${s.error} errors, ${s.timeout} timed out, ${s.uncollectable} uncollectable\n${result.isolation.summary}\n`,
      );
    }
    return 0;
  },
};
