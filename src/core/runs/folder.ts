/**
 * The workspace's runs folder, `.stepwise/runs/`: every feature that saves a run document saves it
 * here, and any feature may list them (the labelling queue, the training data, calibration). Each
 * run kind owns its schema (Prove's is `prove/runSchema.ts`); this floor module knows only where
 * the documents live and how to read them as plain JSON (`dataRun.ts` says which of them are data).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** Where runs of a workspace live. */
export function runsDir(workspace: string): string {
  return path.join(workspace, '.stepwise', 'runs');
}

/**
 * Every `.json` file of a runs folder (oldest first), parsed but not validated; files that are not
 * JSON are listed in `skipped`. A missing folder has none. The one reader of the runs folder: each
 * run kind validates what it returns (Prove's `loadRuns`), the labelling queue reads it loosely.
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
