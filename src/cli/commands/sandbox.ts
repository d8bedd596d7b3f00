import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { parseCommandLine, UsageError } from '../command';
import { runAssertions, runSuite } from '../../core/sandbox/index';
import type { SandboxLanguage, SandboxTest, SuiteResult } from '../../core/sandbox/types';
import { extractTests } from '../../core/tests/extractTests';
import { parseAssertionLines, type RejectedLine } from '../../core/tests/assertions';
import { findFunctions } from '../../core/tests/functions';
import { wholeFlag } from '../flags';

const USAGE =
  'stepwise sandbox --code FILE (--assertions FILE [--function NAME] | --tests FILE) [--lang python|javascript|typescript] [--timeout-ms N] [--suite-timeout-ms N] [--memory-mb N] [--cpu-cores N] [--disk-mb N] [--python PATH] [--runs N] [--json]';

function languageOf(file: string): SandboxLanguage | undefined {
  const ext = path.extname(file);
  if (ext === '.py') return 'python';
  if (['.js', '.mjs', '.cjs'].includes(ext)) return 'javascript';
  if (['.ts', '.mts', '.cts'].includes(ext)) return 'typescript';
  return undefined;
}

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** The function the assertions are about: --function, else the only function the code defines. */
async function functionUnderTest(code: string, language: SandboxLanguage, given?: string): Promise<string> {
  if (given) return given;
  const functions = (await findFunctions(code, language)).filter((f) => f.kind !== 'method');
  if (functions.length === 1) return functions[0].name;
  throw new UsageError(
    `--assertions needs --function NAME: the code defines ${functions.length ? functions.map((f) => f.name).join(', ') : 'no function'}.`,
  );
}

/**
 * Runs tests against a code file in the sandbox. `--assertions` lines (`assert f(x) == y`) are
 * judged by the oracle runner in the host, out of reach of the code under test: those verdicts
 * are forge-proof (`inProcess: false`) and are what the trainer rewards. `--tests` files (pytest
 * functions, node:test calls) run in-process (`inProcess: true`). The code runs the assertions'
 * calls `--runs` times (default 2); a test with two verdicts is `flaky`. Exit code 0 whenever the
 * sandbox itself worked, whatever the tests did.
 */
export const sandboxCommand: CliCommand = {
  name: 'sandbox',
  summary: 'Run assertion lines or a tests file against a code file in the sandbox; one verdict per test',
  usage: USAGE,
  async run(argv) {
    const { values } = parseCommandLine(
      argv,
      {
        code: { type: 'string' },
        tests: { type: 'string' },
        assertions: { type: 'string' },
        function: { type: 'string' },
        lang: { type: 'string' },
        'timeout-ms': { type: 'string' },
        'suite-timeout-ms': { type: 'string' },
        'memory-mb': { type: 'string' },
        'cpu-cores': { type: 'string' },
        'disk-mb': { type: 'string' },
        python: { type: 'string' },
        runs: { type: 'string' },
        json: { type: 'boolean' },
      },
      false,
    );
    if (!values.code || !(values.tests || values.assertions))
      throw new UsageError('--code and one of --assertions or --tests are required.');
    if (values.tests && values.assertions) throw new UsageError('Give --assertions or --tests, not both.');
    const language = (values.lang as SandboxLanguage | undefined) ?? languageOf(values.code);
    if (!language || !['python', 'javascript', 'typescript'].includes(language)) {
      throw new UsageError(
        `Cannot tell the language of ${values.code}: pass --lang python, javascript or typescript.`,
      );
    }
    const code = read(values.code);
    const limits = {
      timeoutMs: wholeFlag(values['timeout-ms'], 'timeout-ms', 1),
      suiteTimeoutMs: wholeFlag(values['suite-timeout-ms'], 'suite-timeout-ms', 1),
      memoryMb: wholeFlag(values['memory-mb'], 'memory-mb', 1),
      cpuCores: wholeFlag(values['cpu-cores'], 'cpu-cores', 1),
      diskMb: wholeFlag(values['disk-mb'], 'disk-mb', 1),
      pythonPath: values.python,
    };
    let result: SuiteResult;
    let rejected: RejectedLine[] | undefined;
    const lines = new Map<string, string>();
    if (values.assertions) {
      const fn = await functionUnderTest(code, language, values.function);
      const parsed = await parseAssertionLines(read(values.assertions), language, fn);
      rejected = parsed.rejected;
      for (const t of parsed.tests) lines.set(t.name, t.line);
      const runs = wholeFlag(values.runs, 'runs', 1);
      result = await runAssertions({ language, code, tests: parsed.tests, runs, ...limits });
    } else {
      const tests: SandboxTest[] = await extractTests(read(String(values.tests)), language, 0);
      if (!tests.length) {
        throw new UsageError(
          `No tests found in ${values.tests}: write pytest functions named test_* (Python) or test('name', ...) calls (JavaScript/TypeScript).`,
        );
      }
      result = await runSuite({ language, code, tests, ...limits });
    }
    if (values.json) {
      process.stdout.write(
        JSON.stringify(
          {
            verdicts: result.verdicts.map((v) => ({
              name: v.name,
              status: v.status,
              output: v.output,
              durationMs: v.durationMs,
              inProcess: v.inProcess,
            })),
            summary: result.summary,
            inProcess: result.inProcess,
            ...(rejected ? { rejected } : {}),
            isolation: result.isolation,
          },
          null,
          2,
        ) + '\n',
      );
    } else {
      for (const r of rejected ?? [])
        process.stdout.write(`${'rejected'.padEnd(13)} ${r.line}  (${r.reason})\n`);
      for (const v of result.verdicts) {
        process.stdout.write(`${v.status.padEnd(13)} ${lines.get(v.name) ?? v.name}\n`);
        if (v.status !== 'passed' && lines.has(v.name) && v.output)
          process.stdout.write(`${v.output.replace(/^/gm, '              ')}\n`);
      }
      const s = result.summary;
      const trust = result.inProcess
        ? 'Verdicts came from inside the process under test (in-process): they could be forged.'
        : 'Verdicts were judged by the host, out of reach of the code under test.';
      process.stdout.write(
        `\n${s.passed} passed, ${s.failed} failed, ${s.error} errors, ${s.timeout} timed out, ${s.uncollectable} uncollectable${s.flaky ? `, ${s.flaky} flaky` : ''}\n${trust}\n${result.isolation.summary}\n`,
      );
    }
    return 0;
  },
};
