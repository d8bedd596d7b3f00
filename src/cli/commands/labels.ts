import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { parseCommandLine, UsageError } from '../command';
import {
  LabelStore,
  currentLabels,
  exportableSolutions,
  fromPrm800k,
  nextToLabel,
  placeLabels,
  readRunDocuments,
  toPrm800k,
  toTrlStepwise,
  type NeutralAs,
} from '../../core/labels/index';
import { stepHash } from '../../core/steps/split';
import { parseProofDocument } from '../../core/steps/document';

const USAGE = `stepwise labels add --store DIR --problem ID --step-text TEXT --rating -1|0|1 [--step-index N] [--solution-id S] [--problem-text TEXT]
       stepwise labels export --store DIR --format prm800k|trl [--neutral positive|negative|drop|keep] [--out FILE]
       stepwise labels import --store DIR FILE
       stepwise labels check --store DIR [--document FILE [--solution-id S]]
       stepwise labels next --store DIR [--runs DIR] [--known-answer A] [--limit N]`;

type Options = Record<string, { type: 'string' | 'boolean' }>;

function parse(
  argv: string[],
  options: Options,
): { values: Record<string, string | undefined>; positionals: string[] } {
  // `--rating -1` is how people write it; parseArgs would take `-1` for an option, so a negative
  // number after an option is joined to it (`--rating=-1`).
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (/^--[^=]+$/.test(argv[i]) && /^-\d/.test(argv[i + 1] ?? '')) args.push(`${argv[i]}=${argv[++i]}`);
    else args.push(argv[i]);
  }
  const r = parseCommandLine(args, { store: { type: 'string' }, ...options });
  return { values: r.values as Record<string, string | undefined>, positionals: r.positionals };
}

function storeOf(values: Record<string, unknown>): LabelStore {
  return new LabelStore((values.store as string | undefined) ?? path.join('.stepwise', 'labels'));
}

/** Reads the store, saying on stderr what opening it repaired. */
async function readStore(store: LabelStore) {
  const contents = await store.read();
  for (const r of contents.repairs) process.stderr.write(`${r}\n`);
  return contents;
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
      if (!values.problem || values['step-text'] === undefined || values.rating === undefined)
        throw new UsageError('add needs --problem, --step-text and --rating.');
      const rating = Number(values.rating);
      if (![-1, 0, 1].includes(rating) || !/^-?[01]$/.test(String(values.rating)))
        throw new UsageError(`--rating must be -1, 0 or 1, not "${values.rating}".`);
      const stepIndex = values['step-index'] === undefined ? 0 : Number(values['step-index']);
      if (!Number.isSafeInteger(stepIndex) || stepIndex < 0)
        throw new UsageError(
          `--step-index must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not "${values['step-index']}".`,
        );
      const text = String(values['step-text']);
      const store = storeOf(values);
      const solutionId = (values['solution-id'] as string | undefined) ?? `cli:${values.problem}`;
      // Relabelling a step supersedes the label in force, as the editor does.
      const previous = currentLabels((await readStore(store)).records).get(`${solutionId}#${stepIndex}`);
      // Printed only once the record is durable (append resolves after fsync).
      const record = await store.append({
        problemId: String(values.problem),
        problemText: values['problem-text'] as string | undefined,
        solutionId,
        stepIndex,
        stepHash: stepHash(text),
        stepText: text,
        rating: rating as -1 | 0 | 1,
        source: 'cli',
        labeller: values.labeller as string | undefined,
        supersedes: previous?.id,
      });
      for (const r of store.lastRepairs) process.stderr.write(`${r}\n`);
      process.stdout.write(JSON.stringify(record) + '\n');
      return 0;
    }
    if (sub === 'export') {
      const { values } = parse(rest, {
        format: { type: 'string' },
        out: { type: 'string' },
        neutral: { type: 'string' },
      });
      if (values.format !== 'prm800k' && values.format !== 'trl')
        throw new UsageError('--format must be prm800k or trl.');
      const neutral = (values.neutral ?? 'positive') as NeutralAs;
      if (!['positive', 'negative', 'drop', 'keep'].includes(neutral))
        throw new UsageError('--neutral must be positive, negative, drop or keep (labels 1 / 0 / -1).');
      const { records, corrupt } = await readStore(storeOf(values));
      const { solutions, skipped } = exportableSolutions(records);
      const rows = values.format === 'trl' ? toTrlStepwise(solutions, neutral) : toPrm800k(solutions);
      const text = rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
      // What was left out is said, never silently dropped: on stderr, so stdout stays the export.
      for (const c of corrupt) process.stderr.write(`skipped line ${c.line} of labels.jsonl: ${c.reason}\n`);
      for (const k of skipped)
        process.stderr.write(
          `solution ${k.solutionId} (problem ${k.problemId}): ${k.exported ? `exported steps 0-${k.exported - 1}; ` : ''}${k.reason}\n`,
        );
      if (values.out) {
        fs.mkdirSync(path.dirname(path.resolve(String(values.out))), { recursive: true });
        fs.writeFileSync(String(values.out), text);
      } else process.stdout.write(text);
      const leftOut = skipped.reduce((n, k) => n + k.steps.length, 0);
      process.stderr.write(
        `${rows.length} solution(s) exported${values.out ? ` to ${values.out}` : ''}${leftOut ? `; ${leftOut} label(s) of ${skipped.length} solution(s) left out (see above)` : ''}${corrupt.length ? `; ${corrupt.length} corrupt line(s) skipped` : ''}\n`,
      );
      return 0;
    }
    if (sub === 'import') {
      const { values, positionals } = parse(rest, {});
      if (positionals.length !== 1) throw new UsageError('import needs the PRM800K .jsonl FILE.');
      let text: string;
      try {
        text = fs.readFileSync(positionals[0], 'utf8');
      } catch (err) {
        throw new UsageError(
          `Cannot read ${positionals[0]}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
      const { labels, problems } = fromPrm800k(text.split('\n'));
      const saved = await storeOf(values).appendMany(labels);
      for (const p of problems) process.stderr.write(`line ${p.line} skipped: ${p.reason}\n`);
      process.stdout.write(JSON.stringify({ imported: saved.length, skippedLines: problems.length }) + '\n');
      return 0;
    }
    if (sub === 'check') {
      const { values } = parse(rest, { document: { type: 'string' }, 'solution-id': { type: 'string' } });
      const { records, corrupt, repairs } = await readStore(storeOf(values));
      const superseded = records.filter((r) => r.supersedes).length;
      const retracted = records.filter((r) => r.rating === null).length;
      let placed: { stale: number; moved: number } | undefined;
      if (values.document) {
        let text: string;
        try {
          text = fs.readFileSync(String(values.document), 'utf8');
        } catch (err) {
          throw new UsageError(
            `Cannot read ${values.document}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          );
        }
        const doc = parseProofDocument(text);
        // The editor identifies a document's solution by its workspace-relative path.
        const solutionId = (values['solution-id'] as string | undefined) ?? `doc:${values.document}`;
        const mine = [...currentLabels(records).values()].filter((r) => r.solutionId === solutionId);
        const { byStep, stale } = placeLabels(mine, doc.steps);
        placed = { stale: stale.length, moved: [...byStep.values()].filter((p) => p.moved).length };
      }
      process.stdout.write(
        JSON.stringify(
          {
            valid: records.length,
            corrupt: corrupt.length,
            corruptLines: corrupt,
            repaired: repairs,
            superseded,
            retracted,
            ...(placed ?? {}),
          },
          null,
          2,
        ) + '\n',
      );
      return corrupt.length ? 1 : 0;
    }
    if (sub === 'next') {
      const { values } = parse(rest, {
        runs: { type: 'string' },
        'known-answer': { type: 'string' },
        limit: { type: 'string' },
      });
      const limit = values.limit === undefined ? 10 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a whole number ≥ 1.');
      const { runs, skipped } = await readRunDocuments(
        (values.runs as string | undefined) ?? path.join('.stepwise', 'runs'),
      );
      for (const s of skipped) process.stderr.write(`${s.file} skipped: ${s.error}\n`);
      const labelled = new Set((await readStore(storeOf(values))).records.map((r) => r.solutionId));
      const knownAnswer = values['known-answer'] as string | undefined;
      const queue = nextToLabel(
        runs.map((r) => ({ ...r, knownAnswer })),
        labelled,
      );
      for (const q of queue.slice(0, limit)) {
        process.stdout.write(
          JSON.stringify({
            solutionId: q.solutionId,
            runId: q.runId,
            iteration: q.iteration,
            candidate: q.candidate,
            priority: Number(q.priority.toFixed(3)),
            why: q.why,
          }) + '\n',
        );
      }
      process.stderr.write(`${queue.length} unlabelled solution(s) in ${runs.length} run file(s)\n`);
      return 0;
    }
    throw new UsageError('Use one of: add, export, import, check, next.');
  },
};
