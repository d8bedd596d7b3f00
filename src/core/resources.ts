import * as fs from 'node:fs';
import * as path from 'node:path';

let packageRoot: string | undefined;

/**
 * The folder holding Stepwise's package.json. Code runs from `out/src/...` (tests), `dist/`
 * (bundles, CLI) and an installed VSIX, so the root is found by walking up, not by a fixed depth.
 */
export function findPackageRoot(start: string = __dirname): string {
  if (packageRoot) return packageRoot;
  let dir = start;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if (JSON.parse(fs.readFileSync(manifest, 'utf8')).name === 'stepwise') return (packageRoot = dir);
      } catch {
        // An unreadable package.json on the way up is not ours; keep walking.
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`Stepwise's package root was not found above ${start}.`);
    dir = parent;
  }
}

/** A data file shipped with Stepwise (prompts, stage definitions), by path from the package root. */
export function resourcePath(...segments: string[]): string {
  return path.join(findPackageRoot(), ...segments);
}
