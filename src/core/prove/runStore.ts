import * as path from 'node:path';
import { saveJsonAtomically } from '../files';
import { readRunDocuments } from '../runs/folder';
import { parseProveRun, type ProveRun } from './runSchema';

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
 * Reads every prove run in a runs folder (`runs/folder.ts`, oldest first), validated and upgraded
 * to the current version. A missing folder has no runs.
 */
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
