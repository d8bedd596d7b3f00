/**
 * Serves a local folder as a model repository in the Hugging Face hub's URL layout on 127.0.0.1:
 * `GET /api/models/{repo}/tree/{rev}?recursive=true` (paths, sizes, `lfs.oid` sha256 for large
 * files, git blob ids for small ones) and `GET /{repo}/resolve/{rev}/{path}` with Range support.
 * Faults can be injected: a connection dropped after N bytes, or bytes that differ from the listing.
 */

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { sendJson, startHttpServer, type TestHttpServer } from './http-server';

/** Files at least this big are listed as LFS files (sha256), like the hub does for weights. */
const LFS_THRESHOLD = 10 * 1024;

export interface HubFaults {
  /** Drop the connection after sending this many bytes of the file, for the next `times` requests of it. */
  cut?: { path: string; afterBytes: number; times: number };
  /** Serve this file with its last byte flipped (the listing keeps the true hash). */
  corrupt?: string;
  /** Answer 404 to the tree API, as servers that only have the model-info API do. */
  noTreeApi?: boolean;
}

export interface HubServer extends TestHttpServer {
  repoId: string;
  faults: HubFaults;
}

function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

export async function startHubServer(
  folder: string,
  repoId = 'test-org/tiny-model',
  revision = 'main',
): Promise<HubServer> {
  const files = new Map<string, Buffer>();
  for (const p of walk(folder)) files.set(relative(folder, p).split(sep).join('/'), readFileSync(p));
  const faults: HubFaults = {};
  const treePath = `/api/models/${repoId}/tree/${revision}?recursive=true`;
  const resolvePrefix = `/${repoId}/resolve/${revision}/`;
  const infoPath = `/api/models/${repoId}/revision/${revision}?blobs=true`;

  const server = await startHttpServer((req, res) => {
    if (req.path === infoPath) {
      const siblings = [...files].map(([path, content]) => ({
        rfilename: path,
        size: content.length,
        blobId: gitBlobId(content),
        ...(content.length >= LFS_THRESHOLD && {
          lfs: {
            sha256: createHash('sha256').update(content).digest('hex'),
            size: content.length,
            pointerSize: 134,
          },
        }),
      }));
      sendJson(res, 200, { id: repoId, siblings });
      return;
    }
    if (req.path === treePath && !faults.noTreeApi) {
      const tree = [...files].map(([path, content]) => {
        const entry: Record<string, unknown> = { type: 'file', path, size: content.length };
        if (content.length >= LFS_THRESHOLD) {
          entry.oid = createHash('sha1').update(path).digest('hex'); // the pointer's id; unused by clients
          entry.lfs = {
            oid: createHash('sha256').update(content).digest('hex'),
            size: content.length,
            pointerSize: 134,
          };
        } else {
          entry.oid = gitBlobId(content);
        }
        return entry;
      });
      const dirs = new Set([...files.keys()].filter((p) => p.includes('/')).map((p) => p.split('/')[0]));
      sendJson(res, 200, [
        ...[...dirs].map((d) => ({ type: 'directory', path: d, oid: 'x', size: 0 })),
        ...tree,
      ]);
      return;
    }
    if (!req.path.startsWith(resolvePrefix)) {
      sendJson(res, 404, { error: 'Repository not found' });
      return;
    }
    const path = decodeURIComponent(req.path.slice(resolvePrefix.length));
    let content = files.get(path);
    if (!content) {
      sendJson(res, 404, { error: 'Entry not found' });
      return;
    }
    if (faults.corrupt === path) {
      content = Buffer.from(content);
      content[content.length - 1] ^= 0xff;
    }
    const range = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
    const start = range ? Number(range[1]) : 0;
    if (start >= content.length && content.length > 0) {
      res.writeHead(416, { 'content-range': `bytes */${content.length}` });
      res.end();
      return;
    }
    const body = content.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-length': String(body.length),
      'accept-ranges': 'bytes',
      ...(range && { 'content-range': `bytes ${start}-${content.length - 1}/${content.length}` }),
    });
    const cut = faults.cut;
    if (cut && cut.path === path && cut.times > 0 && cut.afterBytes - start < body.length) {
      cut.times--;
      // Send the first bytes, then drop the connection as a flaky network would.
      res.write(body.subarray(0, Math.max(0, cut.afterBytes - start)), () =>
        setTimeout(() => res.socket?.destroy(), 20),
      );
      return;
    }
    res.end(body);
  });
  return Object.assign(server, { repoId, faults });
}
