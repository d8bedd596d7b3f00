/**
 * Writes real zip (wheel) and gzipped tar (sdist) files for the ladder tests, byte-compatible with
 * what Python's packaging tools publish: zip members stored or deflated with CRC-32, ustar headers
 * with checksums, and a PAX `path` record for names longer than the header holds.
 */

import { writeFileSync } from 'node:fs';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

export interface ArchiveEntry {
  name: string;
  data: Buffer;
  /** Zip only: store the bytes instead of deflating them. */
  stored?: boolean;
}

export function writeZip(path: string, entries: ArchiveEntry[]): void {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const body = e.stored ? e.data : deflateRawSync(e.data);
    const method = e.stored ? 0 : 8;
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  writeFileSync(path, Buffer.concat([...locals, dir, end]));
}

function tarHeader(name: string, size: number, type: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 99), 0, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('00000000000\0', 136);
  h.write(type, 156);
  h.write('ustar\0' + '00', 257, 'latin1');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');
  return h;
}

const pad = (n: number) => Buffer.alloc((512 - (n % 512)) % 512);

/** A .tar.gz with the entries as regular files; long names get a PAX header first. */
export function writeTarGz(path: string, entries: ArchiveEntry[]): void {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    if (Buffer.byteLength(e.name) > 99) {
      const body = `path=${e.name}\n`;
      let length = body.length + 3;
      while (`${length} ${body}`.length !== length) length = `${length} ${body}`.length;
      const record = Buffer.from(`${length} ${body}`, 'utf8');
      blocks.push(tarHeader('PaxHeader', record.length, 'x'), record, pad(record.length));
    }
    blocks.push(tarHeader(e.name, e.data.length, '0'), e.data, pad(e.data.length));
  }
  blocks.push(Buffer.alloc(1024));
  writeFileSync(path, gzipSync(Buffer.concat(blocks)));
}
