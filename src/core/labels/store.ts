import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { appendDurably } from '../store/durableAppend';
import { FileLock } from '../store/lock';
import { recordStamp } from '../store/record';
import { appendStoreFile, openForAppend, readStoreFile } from '../store/storeFile';
import { LABEL_SCHEMA_VERSION, LabelRecordSchema, isAutomaticLabel, type LabelRecord } from './schema';

export type NewLabel = Omit<LabelRecord, 'schemaVersion' | 'id' | 'createdAt'> &
  Partial<Pick<LabelRecord, 'id' | 'createdAt'>>;

export interface CorruptLine {
  line: number;
  reason: string;
}

export interface StoreContents {
  records: LabelRecord[];
  corrupt: CorruptLine[];
  /** What opening the store repaired (a cut-short last line), in words a person can act on. */
  repairs: string[];
}

/**
 * The append-only label store. Durability: each record is one `write` of a whole line to a file
 * opened with O_APPEND, then `fsync`, before `append` resolves — a label shown as saved survives a
 * crash. A write that fails (a full disk) is cut back to where it started, so the store stays as
 * it was. Two writers (two VS Code windows): O_APPEND alone keeps a single write's bytes together
 * on local filesystems, and an advisory lock file serialises writers on filesystems where it does
 * not, e.g. network mounts. The lock is written in full under a private name, then linked into
 * place, so a lock that is empty or unreadable was never a working lock: it is stale at once. A
 * lock left by a killed writer is taken over once it is older than ten seconds or its process is
 * gone. Corrupt lines are reported and skipped; the store never rewrites or deletes a complete
 * line. A last line cut short (a writer killed or out of disk mid-write) is moved to
 * `labels.jsonl.quarantine` on the next open, with every label before it intact, and the open
 * says so. Store files are opened without following links and without blocking on special
 * files (storeFile.ts): a `labels.jsonl` that is a link out of the store, or a FIFO, is refused
 * with a clear error and what it points to is left untouched.
 *
 * Why a hand-made lock rather than `proper-lockfile`: the critical section is one write and one
 * fsync (milliseconds), so the mtime-refresh machinery that library adds for long-held locks buys
 * nothing, and an atomic create is the same primitive it relies on. Two writers taking over the
 * same stale lock at once could both proceed; that is harmless here because the O_APPEND single
 * write still keeps each line whole, which the two-process crash test checks.
 */
export class LabelStore {
  readonly file: string;
  private readonly lock: FileLock;

  constructor(readonly dir: string) {
    this.file = path.join(dir, 'labels.jsonl');
    this.lock = new FileLock(`${this.file}.lock`, this.file);
  }

  /** Where cut-short last lines go: kept for a person to look at, out of the store's way. */
  get quarantineFile(): string {
    return `${this.file}.quarantine`;
  }

  async append(label: NewLabel): Promise<LabelRecord> {
    const record = LabelRecordSchema.parse({ ...recordStamp(LABEL_SCHEMA_VERSION), ...label });
    await this.appendLines([JSON.stringify(record)]);
    return record;
  }

  /** Appends several records durably, in one write under one lock. */
  async appendMany(labels: NewLabel[]): Promise<LabelRecord[]> {
    const records = labels.map((l) =>
      LabelRecordSchema.parse({ ...recordStamp(LABEL_SCHEMA_VERSION), ...l }),
    );
    if (records.length) await this.appendLines(records.map((r) => JSON.stringify(r)));
    return records;
  }

  /** Repairs made by the last append (a cut-short last line quarantined first). */
  lastRepairs: string[] = [];

  private async appendLines(lines: string[]): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
    const payload = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
    await this.lock.hold(async () => {
      this.lastRepairs = await this.repairTail();
      await appendDurably(this.file, payload);
    });
  }

  /**
   * A last line without its newline is a write that was cut short. A complete record only lacks
   * the newline, which is added; anything else is moved to the quarantine file and cut from the
   * store. Runs under the lock, so no writer is mid-line.
   */
  private async repairTail(): Promise<string[]> {
    const data = await readStoreFile(this.file);
    if (!data) return [];
    if (data.length === 0 || data[data.length - 1] === 0x0a) return [];
    const cut = data.lastIndexOf(0x0a) + 1;
    const tail = data.subarray(cut).toString('utf8');
    const name = path.basename(this.file);
    if (isCompleteRecord(tail)) {
      await appendStoreFile(this.file, '\n');
      return [
        `The last label in ${name} lacked its line end (a write was cut short); the line end was added.`,
      ];
    }
    await appendStoreFile(
      this.quarantineFile,
      `${JSON.stringify({ quarantinedAt: new Date().toISOString(), from: name, bytes: data.length - cut, text: tail })}\n`,
    );
    const handle = await openForAppend(this.file);
    try {
      await handle.truncate(cut);
    } finally {
      await handle.close();
    }
    return [
      `The last line of ${name} was cut short by a failed write (${data.length - cut} bytes, not a complete label); it was moved to ${path.basename(this.quarantineFile)}, and every label before it is intact.`,
    ];
  }

  /** Every valid record in file order, and every corrupt line with why. */
  async read(): Promise<StoreContents> {
    const data = await readStoreFile(this.file);
    if (!data) return { records: [], corrupt: [], repairs: [] };
    const text = data.toString('utf8');
    if (text === '' || text.endsWith('\n')) return parseStoreText(text);
    // A cut-short last line: repaired under the lock (no writer is mid-line then), then read again.
    const repairs = await this.lock.hold(() => this.repairTail());
    return { ...parseStoreText((await readStoreFile(this.file))?.toString('utf8') ?? ''), repairs };
  }
}

function isCompleteRecord(line: string): boolean {
  try {
    return LabelRecordSchema.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
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
  return { records, corrupt, repairs: [] };
}

/** The label in force for each step: the last record per (solution, step); retractions remove it. */
export function currentLabels(records: LabelRecord[]): Map<string, LabelRecord> {
  // Two layers, people's and programs': a retraction only clears its own layer, and a person's
  // label in force hides any automatic one for the same step, whichever came later.
  const human = new Map<string, LabelRecord>();
  const automatic = new Map<string, LabelRecord>();
  for (const r of records) {
    const layer = isAutomaticLabel(r) ? automatic : human;
    const key = `${r.solutionId}#${r.stepIndex}`;
    if (r.rating === null) layer.delete(key);
    else layer.set(key, r);
  }
  const current = new Map(automatic);
  for (const [key, r] of human) current.set(key, r);
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
