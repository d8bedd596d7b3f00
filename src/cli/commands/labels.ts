import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { LabelStore, fromPrm800k, labelStates, labelledSolutions, toPrm800k, toTrlStepwise, type NeutralAs } from '../../core/labels/index';
import { stepHash } from '../../core/steps/split';
import { parseProofDocument } from '../../core/steps/document';

const USAGE = `stepwise labels add --store DIR --problem ID --step-text TEXT --rating -1|0|1 [--step-index N] [--solution-id S] [--problem-text TEXT]
       stepwise labels export --store DIR --format prm800k|trl [--neutral positive|negative|drop] [--out FILE]
       stepwise labels import --store DIR FILE
       stepwise labels check --store DIR [--document FILE --solution-id S]`;

type Options = Record<string, { type: 'string' | 'boolean' }>;

function parse(argv: string[], options: Options): { values: Record<string, string | undefined>; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, options: { store: { type: 'string' }, ...options }, allowPositionals: true, strict: true });
    return { values: r.values as Record<string, string | undefined>, positionals: r.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function storeOf(values: Record<string, unknown>): LabelStore {
  return new LabelStore((values.store as string | undefined) ?? path.join('.stepwise', 'labels'));
}

/** The label store from the command line: the same store the editor writes. */
export const labelsCommand: CliCommand = {
  name: 'labels',
  summary: 'Add, check, import and export step labels (.stepwise/labels)',
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'add') {
      const { values } = parse(rest, {
        problem: { type: 'string' },
        'problem-text': { type: 'string' },
        'step-text': { type: 'string' },
        'step-index': { type: 'string' },
        'solution-id': { type: 'string' },
        rating: { type: 'string' },
        labeller: { type: 'string' },
      });
      if (!values.problem || values['step-text'] === undefined || values.rating === undefined) throw new UsageError('add needs --problem, --step-text and --rating.');
      const rating = Number(values.rating);
      if (![-1, 0, 1].includes(rating) || !/^-?[01]$/.test(String(values.rating))) throw new UsageError(`--rating must be -1, 0 or 1, not "${values.rating}".`);
      const stepIndex = values['step-index'] === undefined ? 0 : Number(values['step-index']);
      if (!Number.isInteger(stepIndex) || stepIndex < 0) throw new UsageError('--step-index must be a whole number ≥ 0.');
      const text = String(values['step-text']);
      // Printed only once the record is durable (append resolves after fsync).
      const record = await storeOf(values).append({
        problemId: String(values.problem),
        problemText: values['problem-text'] as string | undefined,
        solutionId: (values['solution-id'] as string | undefined) ?? `cli:${values.problem}`,
        stepIndex,
        stepHash: stepHash(text),
        stepText: text,
        rating: rating as -1 | 0 | 1,
        source: 'cli',
        labeller: values.labeller as string | undefined,
      });
      process.stdout.write(JSON.stringify(record) + '\n');
      return 0;
    }
    if (sub === 'export') {
      const { values } = parse(rest, { format: { type: 'string' }, out: { type: 'string' }, neutral: { type: 'string' } });
      if (values.format !== 'prm800k' && values.format !== 'trl') throw new UsageError('--format must be prm800k or trl.');
      const neutral = (values.neutral ?? 'positive') as NeutralAs;
      if (!['positive', 'negative', 'drop'].includes(neutral)) throw new UsageError('--neutral must be positive, negative or drop.');
      const { records, corrupt } = await storeOf(values).read();
      const solutions = labelledSolutions(records);
      const rows = values.format === 'trl' ? toTrlStepwise(solutions, neutral) : toPrm800k(solutions);
      const text = rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
      if (values.out) {
        fs.mkdirSync(path.dirname(path.resolve(String(values.out))), { recursive: true });
        fs.writeFileSync(String(values.out), text);
        process.stderr.write(`${rows.length} solutions written to ${values.out}${corrupt.length ? ` (${corrupt.length} corrupt lines skipped)` : ''}\n`);
      } else process.stdout.write(text);
      return 0;
    }
    if (sub === 'import') {
      const { values, positionals } = parse(rest, {});
      if (positionals.length !== 1) throw new UsageError('import needs the PRM800K .jsonl FILE.');
      let text: string;
      try {
        text = fs.readFileSync(positionals[0], 'utf8');
      } catch (err) {
        throw new UsageError(`Cannot read ${positionals[0]}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      const { labels, problems } = fromPrm800k(text.split('\n'));
      const saved = await storeOf(values).appendMany(labels);
      for (const p of problems) process.stderr.write(`line ${p.line} skipped: ${p.reason}\n`);
      process.stdout.write(JSON.stringify({ imported: saved.length, skippedLines: problems.length }) + '\n');
      return 0;
    }
    if (sub === 'check') {
      const { values } = parse(rest, { document: { type: 'string' }, 'solution-id': { type: 'string' } });
      const { records, corrupt } = await storeOf(values).read();
      const superseded = records.filter((r) => r.supersedes).length;
      const retracted = records.filter((r) => r.rating === null).length;
      let stale: number | undefined;
      if (values.document) {
        const doc = parseProofDocument(fs.readFileSync(String(values.document), 'utf8'));
        const solutionId = (values['solution-id'] as string | undefined) ?? `doc:${values.document}`;
        const mine = records.filter((r) => r.solutionId === solutionId && r.rating !== null);
        stale = labelStates(mine, doc.steps).filter((s) => s.state === 'stale').length;
      }
      process.stdout.write(JSON.stringify({ valid: records.length, corrupt: corrupt.length, corruptLines: corrupt, superseded, retracted, ...(stale !== undefined ? { stale } : {}) }, null, 2) + '\n');
      return 0;
    }
    throw new UsageError('Use one of: add, export, import, check.');
  },
};
