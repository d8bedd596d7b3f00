// The finished items of a `stepwise eval` journal (its .items.jsonl), for the bench summaries that
// run as plain Node scripts and so cannot import the TypeScript reader in src/core/eval/journal.ts.
import * as fs from 'node:fs';

/** Every `item` line of the journal at `file`, parsed, in the order they were written. */
export function journalItems(file) {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === 'item');
}

/** The journal next to a results file: `run.json` keeps its items in `run.items.jsonl`. */
export const itemsFileOf = (resultPath) => resultPath.replace(/\.json$/, '.items.jsonl');
