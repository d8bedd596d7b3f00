import * as fs from 'node:fs';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, openModel, parseWithModel } from '../modelOptions';
import { findFunctions, languageForFile } from '../../core/codeReasoning/functions';
import { runFiveStages, testWritingText } from '../../core/codeReasoning/pipeline';
import { createSandboxSuiteRunner } from '../../core/codeReasoning/sandboxRunner';
import { DEFAULT_AGREEMENT_SAMPLES } from '../../core/codeReasoning/rewards';
import { DEFAULT_DISK_MB } from '../../core/sandbox/types';
import { wholeFlag } from '../flags';
import { SANDBOX_DEFAULTS } from '../../core/sandbox/limits';
import { settingDefault } from '../../core/settings/schema';

const USAGE = `stepwise tests FILE::FUNCTION [--reference user|agreement] [--samples N] [--max-tokens N] [--python PATH] [--disk-mb N] [--json] ${MODEL_USAGE}`;

/** Five-stage reasoning about one function, with tests written at every stage and run in the sandbox. */
export const testsCommand: CliCommand = {
  name: 'tests',
  summary: 'Five-stage reasoning about a function, generating and running tests at every stage',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseWithModel(argv, {
      reference: { type: 'string' },
      samples: { type: 'string' },
      'max-tokens': { type: 'string' },
      python: { type: 'string' },
      'disk-mb': { type: 'string' },
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
    // Your function is the reference unless you ask for consensus among generated implementations.
    const reference = values.reference ?? 'user';
    if (reference !== 'user' && reference !== 'agreement')
      throw new UsageError('--reference must be user or agreement.');
    const maxTokens = wholeFlag(
      values['max-tokens'],
      'max-tokens',
      16,
      settingDefault('tests.stageMaxTokens'),
    );
    const samples = wholeFlag(values.samples, 'samples', 2, DEFAULT_AGREEMENT_SAMPLES);
    const diskMb = wholeFlag(values['disk-mb'], 'disk-mb', 16, DEFAULT_DISK_MB);
    const model = await openModel(values);
    try {
      const run = await runFiveStages({
        model,
        target: fn,
        fileSource: source,
        file,
        referenceMode: reference,
        agreementSamples: samples,
        maxTokens,
        runSuite: createSandboxSuiteRunner({
          perTestTimeoutMs: SANDBOX_DEFAULTS.perTestTimeoutMs,
          suiteTimeoutMs: SANDBOX_DEFAULTS.suiteTimeoutMs,
          memoryMb: SANDBOX_DEFAULTS.memoryMb,
          diskMb,
          pythonPath: values.python,
        }),
        onEvent: (e) => {
          if (e.type === 'stage-start') process.stderr.write(`stage ${e.stage}: ${e.role}\n`);
          if (e.type === 'sampling')
            process.stderr.write(`sampling implementation ${e.sample} of ${e.of} for agreement\n`);
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
        const w = run.testWriting;
        process.stdout.write(`\ntest writer: ${testWritingText(w)}\n`);
        process.stdout.write(
          `${s.total} tests, ${s.valid} valid (validity ${s.validity.toFixed(2)}); generator reward ${s.generatorReward.toFixed(2)}, test-writer reward ${s.testWriterReward.toFixed(2)}\n${s.referenceReason}\n`,
        );
        if (s.disagreements.length) {
          process.stdout.write(
            `\n${s.disagreements.length} test(s) disagree with your function (review them; the test may be wrong):\n`,
          );
          for (const d of s.disagreements)
            process.stdout.write(
              `  ${d.input}: yours ${d.onUser}; ${d.samplesPassing} of ${d.samples} generated implementation(s) pass it\n`,
            );
        }
      }
      return 0;
    } finally {
      await model.dispose();
    }
  },
};
