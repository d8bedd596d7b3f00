/**
 * One install of a model folder at a time (the editor and `stepwise models install` may both try):
 * a lock file holding the installer's pid in the staging folder (an install in this same process
 * counts too). A lock whose process is gone is taken over, so a crash never blocks the next install.
 */

import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ModelError } from '../types';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock or throws a ModelError naming the process that holds it; resolves to its release. */
export async function acquireInstallLock(staging: string, what: string): Promise<() => Promise<void>> {
  const file = join(staging, '.install.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (holder > 0 && alive(holder)) {
        throw new ModelError(
          `Another Stepwise process (pid ${holder}) is installing ${what} right now.`,
          'load',
          'Wait for it to finish (or stop it), then try again.',
        );
      }
      await rm(file, { force: true });
    }
  }
  throw new ModelError(`Could not take the install lock ${file}.`, 'load', 'Try again.');
}
