import * as fs from 'node:fs';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, openModel, parseWithModel } from '../modelOptions';
import { findFunctions, languageForFile } from '../../core/tests/functions';
import { failedExamples, runFiveStages, testWritingText } from '../../core/tests/pipeline';
import { createSandboxSuiteRunner } from '../../core/tests/sandboxRunner';
import { DEFAULT_AGREEMENT_SAMPLES, rewardSupportText } from '../../core/tests/rewards';
import {
  DEFAULT_CONFIRM_THRESHOLD,
  DEFAULT_EVIDENCE_SAMPLES,
  USER_VERDICT_TEXT,
  evidenceText,
} from '../../core/tests/evidence';
import { DEFAULT_DISK_MB } from '../../core/sandbox/types';
import { fractionFlag, wholeFlag } from '../flags';
import { SANDBOX_DEFAULTS } from '../../core/sandbox/limits';
import { settingDefault } from '../../core/settings/schema';
import { TestJudgementStore, judgementTrainingRows } from '../../core/tests/expectationStore';
import * as path from 'node:path';

/**
 * Writes the workspace's accepted and rejected expectations as test-writer training rows
 * ({prompt, completion, label}: docs/test-verdicts.md).
 */
async function exportJudgements(out: string, workspace: string): Promise<number> {
  const store = new TestJudgementStore(path.join(workspace, '.stepwise'));
  const { records, corrupt } = await store.read();
  if (!records.length)
    throw new UsageError(
      `No judgements in ${store.file}: accept or reject unconfirmed expectations in the editor first.`,
    );
  const rows = judgementTrainingRows(records);
  fs.writeFileSync(out, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  process.stdout.write(
    `${rows.length} test-writer row(s) (${rows.filter((r) => r.label).length} accepted) written to ${out}${corrupt ? `; ${corrupt} unreadable line(s) in ${store.file} left out` : ''}\n`,
  );
  return 0;
}

const USAGE = `stepwise tests --export-judgements OUT.jsonl [--workspace DIR]
       stepwise tests FILE::FUNCTION [--reference user|agreement] [--samples N] [--evidence-samples N] [--confirm-threshold X] [--max-tokens N] [--python PATH] [--disk-mb N] [--json] ${MODEL_USAGE}`;

/** Five-stage reasoning about one function, with tests written at every stage and run in the sandbox. */
export const testsCommand: CliCommand = {
  name: 'tests',
  summary: 'Five-stage reasoning about a function, generating and running tests at every stage',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseWithModel(argv, {
      reference: { type: 'string' },
      samples: { type: 'string' },
      'evidence-samples': { type: 'string' },
      'confirm-threshold': { type: 'string' },
      'max-tokens': { type: 'string' },
      python: { type: 'string' },
      'disk-mb': { type: 'string' },
      json: { type: 'boolean' },
      'export-judgements': { type: 'string' },
      workspace: { type: 'string' },
    });
    if (values['export-judgements'] !== undefined)
      return exportJudgements(values['export-judgements'], values.workspace ?? process.cwd());
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
    const evidenceSamples = wholeFlag(
      values['evidence-samples'],
      'evidence-samples',
      0,
      DEFAULT_EVIDENCE_SAMPLES,
    );
    const threshold = fractionFlag(
      values['confirm-threshold'],
      'confirm-threshold',
      1.01,
      DEFAULT_CONFIRM_THRESHOLD,
    );
    const model = await openModel(values);
    try {
      const run = await runFiveStages({
        model,
        target: fn,
        fileSource: source,
        file,
        referenceMode: reference,
        agreementSamples: samples,
        evidenceSamples,
        confirmThreshold: threshold,
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
            process.stderr.write(`sampling ${e.of - 1} independent implementation(s) as evidence\n`);
          if (e.type === 'repairing')
            process.stderr.write(
              `sampling ${e.of} implementation(s) again, shown the docstring example(s) the first ones failed\n`,
            );
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
            `stage ${v.stage}  ${v.name.padEnd(32)} yours: ${(v.verdict ? USER_VERDICT_TEXT[v.verdict] : v.onUser).padEnd(34)} generated: ${v.onGenerated}\n`,
          );
        const s = run.scores!;
        const w = run.testWriting;
        process.stdout.write(`\ntest writer: ${testWritingText(w)}\n`);
        process.stdout.write(
          `${s.total} tests, ${s.valid} valid (validity ${s.validity.toFixed(2)}); ${rewardSupportText(s)}\n${s.referenceReason}\n`,
        );
        const examples = failedExamples(run);
        if (examples.length) {
          process.stdout.write(
            `\n${examples.length} example(s) of your own docstring your function fails:\n`,
          );
          for (const x of examples)
            process.stdout.write(`  ${x.example}${x.output ? `: ${x.output.split('\n')[0]}` : ''}\n`);
        }
        const confirmed = run.verdicts.filter((v) => v.verdict === 'fails-confirmed');
        const unconfirmed = run.verdicts.filter((v) => v.verdict === 'unconfirmed');
        const list = (title: string, vs: typeof confirmed) => {
          if (!vs.length) return;
          process.stdout.write(`\n${title}\n`);
          for (const v of vs)
            process.stdout.write(
              `  ${v.input}: yours ${v.onUser}; ${v.evidence ? evidenceText(v.evidence) : 'no evidence'}\n`,
            );
        };
        list(
          `${confirmed.length} test(s) your function fails, confirmed by the generated implementations (threshold ${threshold}):`,
          confirmed,
        );
        list(
          `${unconfirmed.length} unconfirmed expectation(s) to review (your function does not do this, but the evidence is weak; the test may be wrong):`,
          unconfirmed,
        );
      }
      return 0;
    } finally {
      await model.dispose();
    }
  },
};
