import * as fs from 'node:fs';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, openModel, parseWithModel } from '../modelOptions';
import { findFunctions, languageForFile } from '../../core/code/functions';
import { runFiveStages } from '../../core/code/pipeline';
import { createSandboxSuiteRunner } from '../../core/code/sandboxRunner';

const USAGE = `stepwise tests FILE::FUNCTION [--reference user|agreement] [--max-tokens N] [--json] ${MODEL_USAGE}`;

/** Five-stage reasoning about one function, with tests written at every stage and run in the sandbox. */
export const testsCommand: CliCommand = {
  name: 'tests',
  summary: 'Five-stage reasoning about a function, generating and running tests at every stage',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseWithModel(argv, {
      reference: { type: 'string' },
      'max-tokens': { type: 'string' },
      json: { type: 'boolean' },
    });
    const target = positionals[0];
    const sep = target?.lastIndexOf('::') ?? -1;
    if (!target || sep <= 0)
      throw new UsageError(
        'Give the function as FILE::FUNCTION, e.g. examples/code/intervals.py::merge_intervals.',
      );
    const file = target.slice(0, sep);
    const name = target.slice(sep + 2);
    const language = languageForFile(file);
    if (!language) throw new UsageError(`${file} is not a Python, JavaScript or TypeScript file.`);
    let source: string;
    try {
      source = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(
        `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    const functions = await findFunctions(source, language);
    const fn = functions.find((f) => f.qualifiedName === name || f.name === name);
    if (!fn)
      throw new UsageError(
        `No function "${name}" in ${file}. Found: ${functions.map((f) => f.qualifiedName).join(', ') || 'none'}.`,
      );
    const reference = values.reference ?? 'agreement';
    if (reference !== 'user' && reference !== 'agreement')
      throw new UsageError('--reference must be user or agreement.');
    const maxTokens = values['max-tokens'] ? Number(values['max-tokens']) : 256;
    const model = await openModel(values);
    try {
      const run = await runFiveStages({
        model,
        target: fn,
        fileSource: source,
        file,
        referenceMode: reference,
        maxTokens,
        runSuite: createSandboxSuiteRunner({ perTestTimeoutMs: 5000, suiteTimeoutMs: 60_000, memoryMb: 512 }),
        onEvent: (e) => {
          if (e.type === 'stage-start') process.stderr.write(`stage ${e.stage}: ${e.role}\n`);
          if (e.type === 'running-suite')
            process.stderr.write(
              `running ${e.tests} tests against ${e.against === 'user' ? 'your function' : 'the generated code'}\n`,
            );
        },
      });
      if (values.json) {
        process.stdout.write(JSON.stringify(run, null, 2) + '\n');
      } else {
        for (const v of run.verdicts)
          process.stdout.write(
            `stage ${v.stage}  ${v.name.padEnd(32)} yours: ${v.onUser.padEnd(13)} generated: ${v.onGenerated}\n`,
          );
        const s = run.scores!;
        process.stdout.write(
          `\n${s.total} tests, ${s.valid} valid (validity ${s.validity.toFixed(2)}); generator reward ${s.generatorReward.toFixed(2)}, test-writer reward ${s.testWriterReward.toFixed(2)}\n${s.referenceReason}\n`,
        );
      }
      return 0;
    } finally {
      await model.dispose();
    }
  },
};
