import * as os from 'node:os';
import * as path from 'node:path';

/** The machine a benchmark ran on, as every bench/results file records it. */
export function benchMachine(): { cpus: number; cpu: string; platform: string; node: string } {
  return {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    platform: `${os.platform()} ${os.arch()}`,
    node: process.version,
  };
}

/**
 * A path as a results file records it: inside the repository relative to its root
 * (`bench/…`, `../shared/data/…`), in the home folder as `~/…`. Checked-in results name no
 * machine's folders, so a run on one machine reads the same on another (a lint test checks).
 */
export function portablePath(file: string): string {
  const root = path.resolve(__dirname, '..', '..');
  const absolute = path.resolve(file);
  const home = os.homedir();
  const relative = path.relative(root, absolute);
  const inside = !relative.startsWith('..') && !path.isAbsolute(relative);
  if (inside) return relative || '.';
  if (absolute === home || absolute.startsWith(home + path.sep))
    return path.join('~', path.relative(home, absolute));
  // A sibling of the repository (the data in ../shared) reads relative to it.
  if (!relative.startsWith(path.join('..', '..'))) return relative;
  return absolute;
}
