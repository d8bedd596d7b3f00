/**
 * The journal of an evaluation: one JSONL line per finished item, appended and fsynced as each
 * item finishes, next to the results file. A killed run leaves every finished item on disk; the
 * next run with the same settings reads them back and evaluates only the rest, so an interrupted
 * and resumed run ends with the same items — and the same totals — as an uninterrupted one.
 *
 * The first line records the settings that decide the results (the fingerprint). Resuming with
 * other settings would mix two experiments in one table, so it is refused with a hint. A last line
 * torn by a kill mid-write is cut off on open; a lock file keeps two runs from writing one journal.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const JOURNAL_SCHEMA = 'stepwise.eval-journal';

export interface JournalHeader {
  type: 'header';
  schema: typeof JOURNAL_SCHEMA;
  version: 1;
  kind: string;
  fingerprint: Record<string, unknown>;
  createdAt: string;
}

export interface JournalEntry<R> {
  type: 'item';
  index: number;
  id: string;
  /** The item's result; absent when it failed (then `error` says why, and a rerun retries it). */
  result?: R;
  error?: { message: string; hint?: string };
  ms: number;
  /**
   * CPU milliseconds this process (model worker threads included, sandbox children not) spent
   * while the item ran: on a shared machine a steadier measure of its cost than wall time.
   */
  cpuMs?: number;
  finishedAt: string;
}

export class EvalSettingsError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'EvalSettingsError';
  }
}

export class EvalJournal<R> {
  /** Finished items by id (the latest line wins; a failed item is not finished). */
  readonly finished = new Map<string, JournalEntry<R>>();
  /** Items whose last attempt failed, by id. */
  readonly failed = new Map<string, JournalEntry<R>>();
  private fd: number | null = null;
  private readonly lockFile: string;

  private constructor(
    readonly file: string,
    readonly header: JournalHeader,
    /** What opening had to repair (a torn last line), for the caller to report. */
    readonly repairs: string[],
  ) {
    this.lockFile = `${file}.lock`;
  }

  /**
   * Opens the journal for appending, creating it with `fingerprint` or checking that an existing
   * one was made with the same settings. `fresh` starts over, discarding what it holds.
   */
  static open<R>(
    file: string,
    kind: string,
    fingerprint: Record<string, unknown>,
    options: { fresh?: boolean } = {},
  ): EvalJournal<R> {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const header: JournalHeader = {
      type: 'header',
      schema: JOURNAL_SCHEMA,
      version: 1,
      kind,
      fingerprint,
      createdAt: new Date().toISOString(),
    };
    if (options.fresh || !fs.existsSync(file) || fs.statSync(file).size === 0) {
      const journal = new EvalJournal<R>(file, header, []);
      journal.lock();
      fs.writeFileSync(file, JSON.stringify(header) + '\n');
      journal.fd = fs.openSync(file, 'a');
      return journal;
    }
    const { existing, entries, repairs, goodBytes } = readJournal<R>(file);
    if (!existing || existing.kind !== kind)
      throw new EvalSettingsError(
        `${file} is not a journal of a "${kind}" evaluation.`,
        'Choose another --out file, or pass --fresh to overwrite it.',
      );
    const differences = compareFingerprints(existing.fingerprint, fingerprint);
    if (differences.length)
      throw new EvalSettingsError(
        `${file} holds results made with other settings (${differences.join('; ')}); resuming would mix two experiments.`,
        'Run with the same settings to resume, choose another --out file, or pass --fresh to start over.',
      );
    const journal = new EvalJournal<R>(file, existing, repairs);
    journal.lock();
    if (goodBytes < fs.statSync(file).size) fs.truncateSync(file, goodBytes);
    for (const e of entries) journal.record(e);
    journal.fd = fs.openSync(file, 'a');
    return journal;
  }

  /** Appends one finished (or failed) item: a single write of a whole line, then fsync. */
  append(entry: Omit<JournalEntry<R>, 'type' | 'finishedAt'>): JournalEntry<R> {
    if (this.fd === null) throw new Error(`The journal ${this.file} is closed.`);
    const line: JournalEntry<R> = { type: 'item', ...entry, finishedAt: new Date().toISOString() };
    fs.writeSync(this.fd, JSON.stringify(line) + '\n');
    fs.fsyncSync(this.fd);
    this.record(line);
    return line;
  }

  /** Every finished item, in dataset order. */
  entries(): JournalEntry<R>[] {
    return [...this.finished.values()].sort((a, b) => a.index - b.index);
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    fs.rmSync(this.lockFile, { force: true });
  }

  private record(entry: JournalEntry<R>): void {
    if (entry.result !== undefined) {
      this.finished.set(entry.id, entry);
      this.failed.delete(entry.id);
    } else if (!this.finished.has(entry.id)) this.failed.set(entry.id, entry);
  }

  /** One writer per journal: a lock file naming the writer's pid, taken over when that process is gone. */
  private lock(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(this.lockFile, String(process.pid), { flag: 'wx' });
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number(fs.readFileSync(this.lockFile, 'utf8').trim());
        if (pid && pid !== process.pid && processAlive(pid))
          throw new EvalSettingsError(
            `Another evaluation (process ${pid}) is writing ${this.file}.`,
            'Wait for it to finish or stop it; a journal has one writer at a time.',
          );
        fs.rmSync(this.lockFile, { force: true });
      }
    }
    throw new Error(`Could not lock ${this.file}.`);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads a journal without changing it: header, entries, and the length of its whole lines. */
export function readJournal<R>(file: string): {
  existing: JournalHeader | null;
  entries: JournalEntry<R>[];
  repairs: string[];
  goodBytes: number;
} {
  const bytes = fs.readFileSync(file);
  const repairs: string[] = [];
  const entries: JournalEntry<R>[] = [];
  let existing: JournalHeader | null = null;
  let offset = 0;
  let goodBytes = 0;
  let lineNo = 0;
  while (offset < bytes.length) {
    const nl = bytes.indexOf(0x0a, offset);
    const end = nl < 0 ? bytes.length : nl;
    const text = bytes.subarray(offset, end).toString('utf8');
    lineNo++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = null;
    }
    if (nl < 0 || value === null || typeof value !== 'object') {
      // Only the last line can be torn by a kill; a bad line elsewhere is skipped and reported.
      if (nl < 0) {
        repairs.push(`cut off a torn last line (${end - offset} bytes) left by an interrupted run`);
        break;
      }
      repairs.push(`skipped line ${lineNo}: not a JSON object`);
    } else if ((value as { type?: string }).type === 'header' && lineNo === 1) {
      existing = value as JournalHeader;
    } else if ((value as { type?: string }).type === 'item') {
      entries.push(value as JournalEntry<R>);
    }
    offset = end + 1;
    goodBytes = offset;
  }
  return { existing, entries, repairs, goodBytes };
}

/** Names the settings that differ, e.g. `model: "a" vs "b"`. */
export function compareFingerprints(before: Record<string, unknown>, now: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(now)])].sort();
  // The same data file named two ways (a checked-in journal keeps a path relative to the
  // repository, a run names it absolutely) is the same experiment: compare where they point.
  const sameFile = (a: unknown, b: unknown) =>
    typeof a === 'string' && typeof b === 'string' && path.resolve(a) === path.resolve(b);
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(now[k]))
    .filter((k) => !(k === 'data' && sameFile(before[k], now[k])))
    .map((k) => `${k}: ${JSON.stringify(before[k])} before, ${JSON.stringify(now[k])} now`);
}
