/** Streaming one member out of real zip (wheel) and .tar.gz (sdist) files written by the test. */

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArchiveError } from '../../../src/core/model/ladder/archiveTypes';
import { extractTarGzMember } from '../../../src/core/model/ladder/tarMember';
import { extractZipMember, listZipMembers } from '../../../src/core/model/ladder/zipMember';
import { writeTarGz, writeZip } from './archives';

let dir: string;
before(() => (dir = mkdtempSync(join(tmpdir(), 'stepwise-archives-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

async function collect(run: (sink: (c: Buffer) => void) => Promise<number>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const n = await run((c) => void chunks.push(Buffer.from(c)));
  const all = Buffer.concat(chunks);
  assert.equal(n, all.length, 'the returned count is the bytes handed to the sink');
  return all;
}

test('a deflated and a stored zip member come out byte for byte, found through the central directory', async () => {
  const slice = Buffer.concat([randomBytes(300_000), Buffer.alloc(700_000, 7)]);
  const small = Buffer.from('print("hello")\n');
  const wheel = join(dir, 'demo_part1-0.1.0-py3-none-any.whl');
  writeZip(wheel, [
    { name: 'demo_part1/__init__.py', data: small, stored: true },
    { name: 'demo_part1/data/part01.bin', data: slice },
    { name: 'demo_part1-0.1.0.dist-info/RECORD', data: Buffer.from('x') },
  ]);
  const size = statSync(wheel).size;
  assert.ok(size < slice.length, 'the slice was really deflated');
  assert.deepEqual(await listZipMembers(wheel, size), [
    'demo_part1/__init__.py',
    'demo_part1/data/part01.bin',
    'demo_part1-0.1.0.dist-info/RECORD',
  ]);
  const got = await collect((sink) => extractZipMember(wheel, size, 'demo_part1/data/part01.bin', sink));
  assert.ok(got.equals(slice));
  const stored = await collect((sink) => extractZipMember(wheel, size, 'demo_part1/__init__.py', sink));
  assert.ok(stored.equals(small));
});

test('a missing zip member, a file that is no zip and damaged deflate data are ArchiveErrors that say which', async () => {
  const wheel = join(dir, 'one.whl');
  writeZip(wheel, [{ name: 'a/data/part01.bin', data: randomBytes(50_000) }]);
  const size = statSync(wheel).size;
  await assert.rejects(
    extractZipMember(wheel, size, 'a/data/part02.bin', () => {}),
    (err: unknown) => {
      assert.ok(err instanceof ArchiveError);
      assert.match(err.message, /one\.whl has no member a\/data\/part02\.bin/);
      return true;
    },
  );
  const notZip = join(dir, 'not-a.whl');
  writeFileSync(notZip, randomBytes(5_000));
  await assert.rejects(
    extractZipMember(notZip, 5_000, 'x', () => {}),
    /not a zip archive/,
  );
  const damaged = join(dir, 'damaged.whl');
  const bytes = readFileSync(wheel);
  bytes.fill(0xff, 60, 4_000); // inside the deflated member
  writeFileSync(damaged, bytes);
  await assert.rejects(
    extractZipMember(damaged, size, 'a/data/part01.bin', () => {}),
    ArchiveError,
  );
});

test('a .tar.gz member is streamed out, a long PAX path included, and other members are skipped', async () => {
  const gguf = randomBytes(1_234_567);
  const longName = `pkg-0.1.2/${'deep/'.repeat(20)}Model.Q4_1.gguf`;
  const sdist = join(dir, 'pkg-0.1.2.tar.gz');
  writeTarGz(sdist, [
    { name: 'pkg-0.1.2/PKG-INFO', data: Buffer.from('Name: pkg\n') },
    { name: 'pkg-0.1.2/pkg/Model.Q4_1.gguf', data: gguf },
    { name: longName, data: gguf.subarray(0, 1000) },
  ]);
  const got = await collect((sink) => extractTarGzMember(sdist, 'pkg-0.1.2/pkg/Model.Q4_1.gguf', sink));
  assert.ok(got.equals(gguf));
  const viaPax = await collect((sink) => extractTarGzMember(sdist, longName, sink));
  assert.ok(viaPax.equals(gguf.subarray(0, 1000)));
  await assert.rejects(
    extractTarGzMember(sdist, 'pkg-0.1.2/nothing', () => {}),
    /has no member pkg-0\.1\.2\/nothing/,
  );
});

test('a damaged tar header and a truncated .tar.gz are refused', async () => {
  const sdist = join(dir, 'bad.tar.gz');
  const tarball = join(dir, 'plain.tar.gz');
  writeTarGz(tarball, [{ name: 'p/x.bin', data: randomBytes(10_000) }]);
  const { gunzipSync, gzipSync } = await import('node:zlib');
  const tar = gunzipSync(readFileSync(tarball));
  tar[10] ^= 0x01; // the name changes, the checksum no longer fits
  writeFileSync(sdist, gzipSync(tar));
  await assert.rejects(
    extractTarGzMember(sdist, 'p/x.bin', () => {}),
    /damaged \(checksum\)/,
  );
  const truncated = join(dir, 'truncated.tar.gz');
  writeFileSync(truncated, readFileSync(tarball).subarray(0, 3_000));
  await assert.rejects(
    extractTarGzMember(truncated, 'p/x.bin', () => {}),
    ArchiveError,
  );
});
