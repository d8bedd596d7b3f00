import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { saveJsonAtomically } from '../files';
import { parseProveRun, type ProveRun } from './runSchema';

/** Where runs of a workspace live. */
export function runsDir(workspace: string): string {
  return path.join(workspace, '.stepwise', 'runs');
}

/** A file-name-safe slug of the problem's first words ("prove-that-the-square-root-of-2"). */
export function problemSlug(problem: string, maxLength = 40): string {
  const slug = problem
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\\[a-z]+/g, ' ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/g, '');
  return slug || 'problem';
}

/** `2026-11-22T09-30-00-123Z`: sorts by time and is valid on every file system. */
export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

export function runFileName(run: Pick<ProveRun, 'createdAt' | 'problem'>): string {
  return `${fileTimestamp(new Date(run.createdAt))}-${problemSlug(run.problem.text)}.json`;
}

/** Saves a run atomically (temporary file + rename) into `dir`; returns the file written. */
export async function saveRun(run: ProveRun, dir: string): Promise<string> {
  const file = path.join(dir, runFileName(run));
  await saveJsonAtomically(file, run);
  return file;
}

export interface LoadedRuns {
  runs: { file: string; run: ProveRun }[];
  /** Files that are not valid run documents, with why: they are reported, never deleted. */
  skipped: { file: string; error: string }[];
}

/**
 * Every `.json` file of a runs folder (oldest first), parsed but not validated; files that are not
 * JSON are listed in `skipped`. A missing folder has none. The one reader of the runs folder:
 * `loadRuns` validates what it returns, the labelling queue reads it loosely.
 */
export async function readRunDocuments(
  dir: string,
): Promise<{ runs: { file: string; run: unknown }[]; skipped: { file: string; error: string }[] }> {
  const out = {
    runs: [] as { file: string; run: unknown }[],
    skipped: [] as { file: string; error: string }[],
  };
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      out.runs.push({ file, run: JSON.parse(await fs.readFile(file, 'utf8')) });
    } catch (err) {
      out.skipped.push({ file, error: `not JSON: ${(err as Error).message}` });
    }
  }
  return out;
}

/** Reads every prove run in `dir` (oldest first). A missing folder has no runs. */
export async function loadRuns(dir: string): Promise<LoadedRuns> {
  const documents = await readRunDocuments(dir);
  const loaded: LoadedRuns = { runs: [], skipped: documents.skipped };
  for (const { file, run } of documents.runs) {
    // Other features may keep their own run kinds here; only prove runs are read.
    if ((run as { schema?: unknown } | null)?.schema !== 'stepwise.prove-run') continue;
    const parsed = parseProveRun(run);
    if ('run' in parsed) loaded.runs.push({ file, run: parsed.run });
    else loaded.skipped.push({ file, error: parsed.error });
  }
  // Reported in file order, whichever check turned them away.
  loaded.skipped.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return loaded;
}
