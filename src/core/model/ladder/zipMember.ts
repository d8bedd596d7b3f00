/**
 * Streams one member out of a zip archive (a wheel): finds it through the central directory at the
 * end of the file, then inflates its bytes. Only what wheels use is read: stored or deflated
 * members in an archive under 4 GiB (no zip64).
 */

import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { ArchiveError, type MemberSink } from './archiveTypes';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
// zlib.crc32 arrived in Node 20.15; older runtimes use the table below.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32: (data: Buffer, value: number) => number =
  typeof zlib.crc32 === 'function'
    ? zlib.crc32
    : (data, value) => {
        let c = ~value >>> 0;
        for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
        return ~c >>> 0;
      };
const DEFLATED = 8;

interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function centralDirectory(path: string, fileSize: number): Promise<ZipEntry[]> {
  // The end record is 22 bytes plus a comment of up to 65535 bytes.
  const tailLength = Math.min(fileSize, 22 + 0xffff);
  const tail = await readAt(path, fileSize - tailLength, tailLength);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new ArchiveError(`${path} is not a zip archive (no end-of-central-directory record).`);
  const count = tail.readUInt16LE(at + 10);
  const dirSize = tail.readUInt32LE(at + 12);
  const dirOffset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff)
    throw new ArchiveError(`${path} is a zip64 archive, which no model part uses.`);
  const dir = await readAt(path, dirOffset, dirSize);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL_ENTRY)
      throw new ArchiveError(`${path}: the zip central directory is damaged at entry ${i}.`);
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    entries.push({
      method: dir.readUInt16LE(p + 10),
      crc: dir.readUInt32LE(p + 16),
      compressedSize: dir.readUInt32LE(p + 20),
      size: dir.readUInt32LE(p + 24),
      localHeaderOffset: dir.readUInt32LE(p + 42),
      name: dir.toString('utf8', p + 46, p + 46 + nameLength),
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The names of the archive's members, in directory order. */
export async function listZipMembers(path: string, fileSize: number): Promise<string[]> {
  return (await centralDirectory(path, fileSize)).map((e) => e.name);
}

/**
 * Streams `member` of the zip at `path` into `sink`; returns the number of bytes written. Throws
 * ArchiveError when the member is missing, uses another compression, or inflates to another size
 * or CRC-32 than the directory lists.
 */
export async function extractZipMember(
  path: string,
  fileSize: number,
  member: string,
  sink: MemberSink,
  signal?: AbortSignal,
): Promise<number> {
  const entries = await centralDirectory(path, fileSize);
  const entry = entries.find((e) => e.name === member);
  if (!entry) throw new ArchiveError(`${path} has no member ${member}.`);
  if (entry.method !== STORED && entry.method !== DEFLATED)
    throw new ArchiveError(
      `${member} in ${path} uses zip compression method ${entry.method}, not stored or deflate.`,
    );
  const local = await readAt(path, entry.localHeaderOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL_HEADER)
    throw new ArchiveError(`${path}: the local header of ${member} is damaged.`);
  const start = entry.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  if (entry.compressedSize === 0) return 0;
  const raw = createReadStream(path, { start, end: start + entry.compressedSize - 1, signal });
  // pipeline() passes a read error or an abort on to the inflater, so the loop below ends with it.
  const source: Readable = entry.method === DEFLATED ? pipeline(raw, zlib.createInflateRaw(), () => {}) : raw;
  let written = 0;
  let crc = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (signal?.aborted) throw signal.reason;
      written += chunk.length;
      if (written > entry.size) break;
      crc = crc32(chunk, crc);
      await sink(chunk);
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ArchiveError(`${member} in ${path} cannot be inflated (${(err as Error).message}).`);
  } finally {
    raw.destroy();
    source.destroy();
  }
  if (written !== entry.size)
    throw new ArchiveError(
      `${member} in ${path} inflated to ${written} bytes, not the ${entry.size} it lists.`,
    );
  // The sink already has the bytes; the caller's hash of the whole is what keeps bad bytes out.
  if (crc !== entry.crc)
    throw new ArchiveError(`${member} in ${path} fails its CRC-32 check (damaged archive).`);
  return written;
}
