import { writeError } from './lock';
import { openForAppend } from './storeFile';

/**
 * Appends `bytes` to a store file as one durable write: synced to disk before it resolves. A write
 * that fails (a full disk) is cut back to where it started, so no half line is left behind, and
 * the error says what happened. Callers hold the store's lock.
 */
export async function appendDurably(file: string, bytes: Buffer): Promise<void> {
  const handle = await openForAppend(file);
  try {
    const { size } = await handle.stat();
    try {
      let written = 0;
      while (written < bytes.length) written += (await handle.write(bytes, written)).bytesWritten;
      await handle.sync();
    } catch (err) {
      await handle.truncate(size).catch(() => undefined);
      throw writeError(err, file);
    }
  } finally {
    await handle.close();
  }
}
