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

/** Reads every prove run in `dir` (oldest first). A missing folder has no runs. */
export async function loadRuns(dir: string): Promise<LoadedRuns> {
  const loaded: LoadedRuns = { runs: [], skipped: [] };
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return loaded;
    throw err;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    let value: unknown;
    try {
      value = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (err) {
      loaded.skipped.push({ file, error: `not JSON: ${(err as Error).message}` });
      continue;
    }
    // Other features may keep their own run kinds here; only prove runs are read.
    if ((value as { schema?: unknown } | null)?.schema !== 'stepwise.prove-run') continue;
    const parsed = parseProveRun(value);
    if ('run' in parsed) loaded.runs.push({ file, run: parsed.run });
    else loaded.skipped.push({ file, error: parsed.error });
  }
  return loaded;
}
