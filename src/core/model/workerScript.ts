/**
 * Finding a worker thread's script: in the extension and the CLI it is an esbuild bundle beside
 * the main bundle (dist/), in tests the tsc output beside the module that starts it. One lookup
 * for every worker, so each says the same thing when its script did not ship.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ModelError } from './types';

/**
 * The first of `names` (relative to `dir`) that exists. `what` names the worker and `bundle` the
 * file the build must ship, for the error a user sees when none does.
 */
export function findWorkerScript(
  dir: string,
  names: readonly string[],
  what: string,
  bundle: string,
): string {
  const candidates = names.map((name) => join(dir, name));
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new ModelError(
      `The ${what} is missing (looked for ${candidates.join(', ')}).`,
      'load',
      `Rebuild the extension (npm run build); dist/${bundle} must ship beside dist/extension.js.`,
    );
  }
  return found;
}
