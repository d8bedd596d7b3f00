/**
 * Opening a store's own files safely (the label store, the test-judgement store). A store folder
 * can come from anywhere (a cloned repository ships symbolic links and, through a checkout script, FIFOs), so its files are opened
 * without following links (O_NOFOLLOW) and without blocking on special files (O_NONBLOCK), and
 * only regular files are used: a link that points out of the store is refused, never written
 * through, and a FIFO gives a clear error instead of a process that waits for ever.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** A store file that is not a regular file of the store's own: refused, left as it is. */
export class StoreFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreFileError';
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a folder';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function refusal(file: string, st: fs.Stats): StoreFileError {
  let target = '';
  if (st.isSymbolicLink()) {
    try {
      target = ` pointing to ${fs.readlinkSync(file)}`;
    } catch {
      // The link vanished meanwhile; the message still names the file.
    }
  }
  return new StoreFileError(
    `${file} is ${kindOf(st)}${target}, not a regular file: the label store only opens its own files, so it was left alone, and so was anything it points to. Move it away (or replace it with a regular file) and try again; nothing was written.`,
  );
}

/** Throws StoreFileError when `file` exists and is not a regular file; no link is followed. */
export function assertRegularOrAbsent(file: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!st.isFile()) throw refusal(file, st);
}

/** The error an open with O_NOFOLLOW gives on a link (ELOOP), as the refusal a person reads. */
function asRefusal(err: unknown, file: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== 'ELOOP' && code !== 'ENXIO') return err;
  try {
    return refusal(file, fs.lstatSync(file));
  } catch {
    return err;
  }
}

async function checked(handle: fsp.FileHandle, file: string): Promise<fsp.FileHandle> {
  const st = await handle.stat();
  if (st.isFile()) return handle;
  await handle.close();
  throw refusal(file, st);
}

/** Opens a store file to read; null when it does not exist. */
export async function openForRead(file: string): Promise<fsp.FileHandle | null> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw asRefusal(err, file);
  }
  return checked(handle, file);
}

/** Opens (creating) a store file to append to. */
export async function openForAppend(file: string): Promise<fsp.FileHandle> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644);
  } catch (err) {
    throw asRefusal(err, file);
  }
  return checked(handle, file);
}

/** The whole text of a store file (a Buffer), or null when it does not exist. */
export async function readStoreFile(file: string): Promise<Buffer | null> {
  const handle = await openForRead(file);
  if (!handle) return null;
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Appends text to a store file that is, or becomes, a regular file of the store's own. */
export async function appendStoreFile(file: string, text: string): Promise<void> {
  const handle = await openForAppend(file);
  try {
    await handle.appendFile(text);
  } finally {
    await handle.close();
  }
}

/** Synchronous read of a small store file (the lock); null when it does not exist. */
export function readStoreFileSync(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw asRefusal(err, file);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw refusal(file, st);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}
