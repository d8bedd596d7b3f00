/**
 * The results file of `bench:structured`: every item measured so far, keyed by part, mode and item,
 * rewritten atomically after each item, so that a run that is stopped (or crashes) resumes where it
 * was and never loses a finished item. A file measured with another model or other settings is not
 * reused: its items would not be comparable.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export type Mode = 'free' | 'constrained';

export interface ItemRecord {
  part: 'math' | 'humaneval' | 'practice';
  mode: Mode;
  id: string;
  ms: number;
  [field: string]: unknown;
}

export interface ResultsFile {
  benchmark: 'structured';
  /** What must match for items to be reused. */
  config: Record<string, unknown>;
  startedAt: string;
  updatedAt: string;
  machine: Record<string, unknown>;
  items: ItemRecord[];
  summary?: Record<string, unknown>;
}

export class Results {
  private readonly byKey = new Map<string, ItemRecord>();

  private constructor(
    readonly file: string,
    readonly data: ResultsFile,
  ) {
    for (const item of data.items) this.byKey.set(Results.key(item), item);
  }

  static key(i: Pick<ItemRecord, 'part' | 'mode' | 'id'>): string {
    return `${i.part}/${i.mode}/${i.id}`;
  }

  /** Opens the file, keeping its items when it was measured with the same config. */
  static open(file: string, config: Record<string, unknown>, machine: Record<string, unknown>): Results {
    const now = new Date().toISOString();
    const fresh: ResultsFile = {
      benchmark: 'structured',
      config,
      startedAt: now,
      updatedAt: now,
      machine,
      items: [],
    };
    let previous: ResultsFile | undefined;
    try {
      previous = JSON.parse(fs.readFileSync(file, 'utf8')) as ResultsFile;
    } catch {
      previous = undefined;
    }
    const same = previous && JSON.stringify(previous.config) === JSON.stringify(config);
    if (previous && !same)
      process.stderr.write(`structured: ${file} was measured with other settings; starting afresh.\n`);
    return new Results(file, same && previous ? { ...previous, machine } : fresh);
  }

  has(i: Pick<ItemRecord, 'part' | 'mode' | 'id'>): boolean {
    return this.byKey.has(Results.key(i));
  }

  items(part: ItemRecord['part'], mode?: Mode): ItemRecord[] {
    return this.data.items.filter((i) => i.part === part && (mode === undefined || i.mode === mode));
  }

  add(item: ItemRecord): void {
    const key = Results.key(item);
    if (this.byKey.has(key)) this.data.items = this.data.items.filter((i) => Results.key(i) !== key);
    this.byKey.set(key, item);
    this.data.items.push(item);
    this.save();
  }

  setSummary(summary: Record<string, unknown>): void {
    this.data.summary = summary;
    this.save();
  }

  save(): void {
    this.data.updatedAt = new Date().toISOString();
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.data, null, 1) + '\n');
    fs.renameSync(tmp, this.file);
  }
}

export const share = (xs: readonly boolean[]): number | null =>
  xs.length ? xs.filter(Boolean).length / xs.length : null;

export const mean = (xs: readonly number[]): number | null =>
  xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;

export function progress(part: string, mode: string, done: number, total: number, note: string): void {
  process.stderr.write(`[${part} ${mode} ${done}/${total}] ${note}\n`);
}
