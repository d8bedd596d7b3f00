/**
 * Scratch folders for unit tests. Tests must not leave folders in /tmp, so each folder made here is
 * removed, contents and all, when the test process exits; node's test runner runs every test file
 * in its own process, so that is when the file's tests are done.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];

/** A fresh empty folder under os.tmpdir(), named `prefix` and a random suffix, gone at exit. */
export function scratchDir(prefix: string): string {
  if (made.length === 0)
    process.once('exit', () => {
      for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
    });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
