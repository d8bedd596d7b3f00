import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { LABEL_SCHEMA_VERSION, LabelRecordSchema, type LabelRecord } from './schema';

export type NewLabel = Omit<LabelRecord, 'schemaVersion' | 'id' | 'createdAt'> &
  Partial<Pick<LabelRecord, 'id' | 'createdAt'>>;

export interface CorruptLine {
  line: number;
  reason: string;
}

export interface StoreContents {
  records: LabelRecord[];
  corrupt: CorruptLine[];
}

const LOCK_STALE_MS = 10_000;

/**
 * The append-only label store. Durability: each record is one `write` of a whole line to a file
 * opened with O_APPEND, then `fsync`, before `append` resolves — a label shown as saved survives a
 * crash. Two writers (two VS Code windows): O_APPEND alone keeps a single write's bytes together
 * on local filesystems, and an advisory lock file (created with O_EXCL) serialises writers on
 * filesystems where it does not, e.g. network mounts. A lock left by a killed writer is taken
 * over once it is older than ten seconds or its process is gone. Corrupt lines are reported
 * and skipped; the store never rewrites or deletes a line.
 *
 * Why a hand-made lock rather than `proper-lockfile`: the critical section is one write and one
 * fsync (milliseconds), so the mtime-refresh machinery that library adds for long-held locks buys
 * nothing, and O_EXCL create is the same primitive it relies on. Two writers taking over the same
 * stale lock at once could both proceed; that is harmless here because the O_APPEND single write
 * still keeps each line whole, which the two-process crash test checks.
 */
export class LabelStore {
  readonly file: string;
  private readonly lockFile: string;

  constructor(readonly dir: string) {
    this.file = path.join(dir, 'labels.jsonl');
    this.lockFile = `${this.file}.lock`;
  }

  async append(label: NewLabel): Promise<LabelRecord> {
    const record = LabelRecordSchema.parse({
      schemaVersion: LABEL_SCHEMA_VERSION,
      id: randomUUID(),
      createdAt: new Date().toISOString(),
      ...label,
    });
    await this.appendLines([JSON.stringify(record)]);
    return record;
  }

  /** Appends several records durably, in one write under one lock. */
  async appendMany(labels: NewLabel[]): Promise<LabelRecord[]> {
    const records = labels.map((l) =>
      LabelRecordSchema.parse({
        schemaVersion: LABEL_SCHEMA_VERSION,
        id: randomUUID(),
        createdAt: new Date().toISOString(),
        ...l,
      }),
    );
    if (records.length) await this.appendLines(records.map((r) => JSON.stringify(r)));
    return records;
  }

  private async appendLines(lines: string[]): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
    const payload = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
    await this.withLock(async () => {
      const handle = await fsp.open(this.file, 'a');
      try {
        // A line is never started on a line another (killed) writer left unfinished.
        const { size } = await handle.stat();
        let prefix = Buffer.alloc(0);
        if (size > 0) {
          const last = Buffer.alloc(1);
          const fd = fs.openSync(this.file, 'r');
          try {
            fs.readSync(fd, last, 0, 1, size - 1);
          } finally {
            fs.closeSync(fd);
          }
          if (last[0] !== 0x0a) prefix = Buffer.from('\n');
        }
        const data = Buffer.concat([prefix, payload]);
        let written = 0;
        while (written < data.length) written += (await handle.write(data, written)).bytesWritten;
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  private async withLock<T>(work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const fd = fs.openSync(this.lockFile, 'wx');
        fs.writeSync(fd, `${process.pid} ${Date.now()}`);
        fs.closeSync(fd);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        if (this.lockIsStale()) {
          fs.rmSync(this.lockFile, { force: true });
          continue;
        }
        if (Date.now() > deadline)
          throw new Error(
            `The label store ${this.file} stayed locked for 30 s by another writer. If no other Stepwise window or CLI is labelling, delete ${this.lockFile} and try again; nothing was written.`,
            { cause: err },
          );
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 8));
      }
    }
    try {
      return await work();
    } finally {
      fs.rmSync(this.lockFile, { force: true });
    }
  }

  private lockIsStale(): boolean {
    try {
      const [pid, at] = fs.readFileSync(this.lockFile, 'utf8').split(' ').map(Number);
      if (Date.now() - at > LOCK_STALE_MS) return true;
      try {
        process.kill(pid, 0);
        return false;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'ESRCH';
      }
    } catch {
      // An empty or half-written lock file: its writer died between create and write.
      try {
        return Date.now() - fs.statSync(this.lockFile).mtimeMs > 1000;
      } catch {
        return true;
      }
    }
  }

  /** Every valid record in file order, and every corrupt line with why. */
  async read(): Promise<StoreContents> {
    let text: string;
    try {
      text = await fsp.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], corrupt: [] };
      throw err;
    }
    return parseStoreText(text);
  }
}

export function parseStoreText(text: string): StoreContents {
  const records: LabelRecord[] = [];
  const corrupt: CorruptLine[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      corrupt.push({
        line: i + 1,
        reason: i === lines.length - 1 ? 'unfinished last line (a writer stopped mid-write)' : 'not JSON',
      });
      return;
    }
    const parsed = LabelRecordSchema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
    else
      corrupt.push({
        line: i + 1,
        reason: parsed.error.issues.map((x) => `${x.path.join('.') || 'record'}: ${x.message}`).join('; '),
      });
  });
  return { records, corrupt };
}

/** The label in force for each step: the last record per (solution, step); retractions remove it. */
export function currentLabels(records: LabelRecord[]): Map<string, LabelRecord> {
  const current = new Map<string, LabelRecord>();
  for (const r of records) {
    const key = `${r.solutionId}#${r.stepIndex}`;
    if (r.rating === null) current.delete(key);
    else current.set(key, r);
  }
  return current;
}

export type LabelState = 'current' | 'stale';

/**
 * Checks labels against the steps a solution has now. A label whose step text changed is stale:
 * it is never moved to another step, not even one with the same text, so nothing is silently
 * reassigned; `movedTo` only tells where identical text now stands.
 */
export function labelStates(
  labels: LabelRecord[],
  steps: { index: number; hash: string }[],
): { label: LabelRecord; state: LabelState; movedTo?: number }[] {
  return labels.map((label) => {
    const now = steps.find((s) => s.index === label.stepIndex);
    if (now && now.hash === label.stepHash) return { label, state: 'current' };
    const moved = steps.find((s) => s.hash === label.stepHash);
    return { label, state: 'stale', movedTo: moved?.index };
  });
}

export interface PlacedLabels {
  /** The label in force on each current step (by step index). */
  byStep: Map<number, { label: LabelRecord; moved: boolean }>;
  /** Labels whose step text is no longer where they were given and cannot be placed exactly. */
  stale: LabelRecord[];
}

/**
 * Places a solution's labels on its current steps. A label stays on its step while the step's
 * hash matches; when the text moved (lines inserted or removed above it) it follows the text,
 * but only to the one step whose hash matches exactly, and only when that step has no label of
 * its own — a near match or an ambiguous one (the same text twice) leaves the label stale, so a
 * rating is never silently attached to text the labeller did not rate.
 */
export function placeLabels(labels: LabelRecord[], steps: { index: number; hash: string }[]): PlacedLabels {
  const byStep: PlacedLabels['byStep'] = new Map();
  const stale: LabelRecord[] = [];
  const pending: LabelRecord[] = [];
  for (const label of labels) {
    const now = steps.find((s) => s.index === label.stepIndex);
    if (now && now.hash === label.stepHash) byStep.set(now.index, { label, moved: false });
    else pending.push(label);
  }
  for (const label of pending) {
    const matches = steps.filter((s) => s.hash === label.stepHash);
    if (matches.length === 1 && !byStep.has(matches[0].index))
      byStep.set(matches[0].index, { label, moved: true });
    else stale.push(label);
  }
  return { byStep, stale };
}
