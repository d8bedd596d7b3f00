import * as fs from 'node:fs';
import * as path from 'node:path';

/** Loop folders are named by their start time, so that names sort in time order. */
const LOOP_NAME = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;

/**
 * Where this run's loop lives, in the editor and the CLI alike. A stopped loop (no report yet) continues where it stopped; a
 * finished one is kept as it is and a new loop starts beside it: its phases are recorded as done,
 * so reusing its folder would hand back the old PRM instead of one trained on the newer labels.
 */
export function loopFolder(workspace: string, now = new Date()): string {
  const base = path.join(workspace, '.stepwise', 'loop');
  const loops = fs.existsSync(base)
    ? fs
        .readdirSync(base, { withFileTypes: true })
        .filter((e) => e.isDirectory() && LOOP_NAME.test(e.name))
        .map((e) => e.name)
        .sort()
    : [];
  const newest = loops.at(-1);
  if (newest && !fs.existsSync(path.join(base, newest, 'loop-report.json'))) return path.join(base, newest);
  return path.join(base, now.toISOString().replace(/[:.]/g, '-'));
}
