/**
 * Streams one member out of a gzipped tar archive (a Python source distribution) in one pass:
 * gunzip, then walk the 512-byte headers (ustar names with prefix, PAX `path` records, GNU long
 * names) until the member turns up, and hand its body to the sink without holding it in memory.
 */

import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ArchiveError, type MemberSink } from './archiveTypes';

const BLOCK = 512;

/** Pulls exact byte counts out of a stream of chunks. */
class ByteQueue {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ended = false;

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async fill(n: number): Promise<void> {
    while (this.pendingBytes < n && !this.ended) {
      const next = await this.source.next();
      if (next.done) this.ended = true;
      else {
        this.pending.push(next.value);
        this.pendingBytes += next.value.length;
      }
    }
  }

  /** Up to n bytes (fewer only at the end of the stream). */
  async take(n: number): Promise<Buffer> {
    await this.fill(n);
    const all = Buffer.concat(this.pending);
    const out = all.subarray(0, Math.min(n, all.length));
    const rest = all.subarray(out.length);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
    return out;
  }

  /** Exactly n bytes as they arrive; throws when the stream ends first. */
  async *pieces(n: number, what: string): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.pendingBytes === 0) await this.fill(1);
      const head = this.pending.shift();
      if (!head) throw new Error(`it ends inside ${what}`);
      const piece = head.length <= left ? head : head.subarray(0, left);
      if (piece !== head) this.pending.unshift(head.subarray(left));
      this.pendingBytes -= piece.length;
      left -= piece.length;
      yield piece;
    }
  }

  async skip(n: number, what: string): Promise<void> {
    for await (const _ of this.pieces(n, what));
  }
}

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.toString('utf8', 0, end < 0 ? field.length : end);
}

function number(block: Buffer, start: number, length: number): number {
  // GNU tar writes sizes of 8 GiB and more in base 256, flagged by the high bit.
  if (block[start] & 0x80) {
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i];
    return value;
  }
  const digits = text(block, start, length).trim();
  return digits ? parseInt(digits, 8) : 0;
}

function checksumOk(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return sum === number(block, 148, 8);
}

/** The `path` record of a PAX extended header ("<len> key=value\n" records), if any. */
function paxPath(records: Buffer): string | undefined {
  let path: string | undefined;
  let at = 0;
  while (at < records.length) {
    const space = records.indexOf(0x20, at);
    const length = parseInt(records.toString('utf8', at, space), 10);
    if (space < 0 || !(length > 0)) break;
    const record = records.toString('utf8', space + 1, at + length - 1);
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === 'path') path = record.slice(eq + 1);
    at += length;
  }
  return path;
}

const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

/**
 * Streams `member` of the .tar.gz at `path` into `sink`; returns the number of bytes written.
 * Throws ArchiveError when the archive is damaged or has no such member.
 */
export async function extractTarGzMember(
  path: string,
  member: string,
  sink: MemberSink,
  signal?: AbortSignal,
): Promise<number> {
  const raw = createReadStream(path, { signal });
  const gunzip = pipeline(raw, createGunzip(), () => {});
  const queue = new ByteQueue(gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
  let nextName: string | undefined;
  try {
    for (;;) {
      const header = await queue.take(BLOCK);
      if (header.length < BLOCK || header.every((b) => b === 0)) break;
      if (!checksumOk(header)) throw new ArchiveError(`a tar header in ${path} is damaged (checksum).`);
      const size = number(header, 124, 12);
      const type = String.fromCharCode(header[156] || 0x30);
      const prefix = header.toString('latin1', 257, 262) === 'ustar' ? text(header, 345, 155) : '';
      const name = nextName ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
      if (type === 'x' || type === 'L') {
        const body = await queue.take(size + padding(size));
        nextName = type === 'x' ? paxPath(body.subarray(0, size)) : text(body, 0, size);
        continue;
      }
      nextName = undefined;
      if (name === member && (type === '0' || type === '7')) {
        let written = 0;
        for await (const piece of queue.pieces(size, member)) {
          await sink(piece);
          written += piece.length;
        }
        return written;
      }
      await queue.skip(size + padding(size), name);
    }
  } catch (err) {
    if (signal?.aborted || err instanceof ArchiveError) throw err;
    throw new ArchiveError(`${path} cannot be read as a .tar.gz (${(err as Error).message}).`);
  } finally {
    raw.destroy();
    gunzip.destroy();
  }
  throw new ArchiveError(`${path} has no member ${member}.`);
}
