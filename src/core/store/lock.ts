import * as fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { readStoreFileSync, StoreFileError } from './storeFile';

const LOCK_STALE_MS = 10_000;

/** A failed write as a person reads it: a full disk says so, and that nothing was written. */
export function writeError(err: unknown, file: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new Error(
      `The disk holding ${file} is full: nothing was written and the store is unchanged. Free some space and try again.`,
      { cause: err },
    );
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * The label store's advisory lock (see LabelStore). It is written in full under a private name,
 * then linked into place, so a lock that is empty or unreadable was never a working lock: it is
 * stale at once. A live lock names a running process and is younger than ten seconds. Something
 * in the lock's place that is not a regular file (a FIFO, a link) is refused with a clear error:
 * it is never opened in a way that blocks, and never removed, since no Stepwise writer made it.
 */
export class FileLock {
  constructor(
    private readonly lockFile: string,
    /** The file the lock protects, named in messages. */
    private readonly guarded: string,
  ) {}

  async hold<T>(work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (this.tryLock()) break;
      if (this.lockIsStale()) {
        fs.rmSync(this.lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(
          `The label store ${this.guarded} stayed locked for 30 s by another writer. If no other Stepwise window or CLI is labelling, delete ${this.lockFile} and try again; nothing was written.`,
        );
      await new Promise((r) => setTimeout(r, 2 + Math.random() * 8));
    }
    try {
      return await work();
    } finally {
      fs.rmSync(this.lockFile, { force: true });
    }
  }

  /** Takes the lock: written in full under a private name, then linked into place (atomic, never empty). */
  private tryLock(): boolean {
    const draft = `${this.lockFile}.${process.pid}.${randomUUID().slice(0, 8)}`;
    try {
      fs.writeFileSync(draft, `${process.pid} ${Date.now()}`, { flag: 'wx' });
    } catch (err) {
      fs.rmSync(draft, { force: true });
      throw writeError(err, this.lockFile);
    }
    try {
      fs.linkSync(draft, this.lockFile);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // A filesystem without hard links: an exclusive create of the lock itself.
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return this.tryExclusiveLock();
      throw err;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }

  private tryExclusiveLock(): boolean {
    let fd: number;
    try {
      fd = fs.openSync(this.lockFile, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    try {
      fs.writeSync(fd, `${process.pid} ${Date.now()}`);
    } catch (err) {
      fs.closeSync(fd);
      fs.rmSync(this.lockFile, { force: true });
      throw writeError(err, this.lockFile);
    }
    fs.closeSync(fd);
    return true;
  }

  /** A lock is live only while it names a running process and is younger than LOCK_STALE_MS. */
  private lockIsStale(): boolean {
    let text: string | null;
    try {
      // Never blocks and never follows a link: a FIFO or a link in the lock's place is refused.
      text = readStoreFileSync(this.lockFile);
    } catch (err) {
      if (err instanceof StoreFileError) throw err;
      return true; // Unreadable: not a lock anyone can hold.
    }
    if (text === null) return true; // Gone.
    const m = /^(\d+) (\d+)$/.exec(text.trim());
    if (!m) return true; // Empty or garbled: locks are written before they are linked into place.
    const [pid, at] = [Number(m[1]), Number(m[2])];
    if (!Number.isSafeInteger(pid) || pid <= 0 || !Number.isFinite(at)) return true;
    if (Date.now() - at > LOCK_STALE_MS) return true;
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }
}
