/**
 * Fetches one file over HTTP(S) whose size and digest are known in advance. The bytes go to
 * `<target>.part` first; after an interruption the next attempt continues that part with a Range
 * request; only once the size and digest match is the part renamed to `target`. A file whose bytes
 * do not match is deleted and refused with a message naming it and both digests.
 */

import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ModelError } from '../types';

/** A file to fetch and what its bytes must be. */
export interface ExpectedFile {
  /** How messages name the file (a repository path, a wheel's file name). */
  name: string;
  url: string;
  size: number;
  /** Hex sha256 of the content. */
  sha256?: string;
  /** Git blob id (sha1 of `blob <size>\0<content>`), for small files a repository lists that way. */
  gitOid?: string;
}

export interface FetchFileOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Attempts to resume after a dropped connection or a 5xx/429. Default 3. */
  retries?: number;
  /** Milliseconds without a byte before a transfer counts as dropped. Default 60000. */
  idleTimeoutMs?: number;
  /** Bytes of this file present so far (the resumed part included). */
  onBytes?: (fileBytes: number) => void;
  /** What the digest was taken from, for the mismatch message. Default "its pinned hash". */
  pinnedBy?: string;
}

export interface FetchedFile {
  /** True when a verified copy was already at the target and nothing was fetched. */
  alreadyPresent: boolean;
  /** True when an earlier `.part` was continued with a Range request. */
  resumed: boolean;
  /** Bytes fetched by this call (less than the size after a resume). */
  fetched: number;
}

class TransientError extends Error {
  constructor(
    message: string,
    readonly fetched = 0,
  ) {
    super(message);
  }
}

export function downloadCancelled(): ModelError {
  return new ModelError(
    'The download was cancelled; what was fetched is kept and the next download resumes it.',
    'aborted',
  );
}

function newHasher(file: ExpectedFile): Hash | undefined {
  if (file.sha256) return createHash('sha256');
  if (file.gitOid) return createHash('sha1').update(`blob ${file.size}\0`);
  return undefined;
}

export async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}

async function digestOf(file: ExpectedFile, path: string): Promise<string | undefined> {
  const hasher = newHasher(file);
  if (!hasher) return undefined;
  for await (const chunk of createReadStream(path)) hasher.update(chunk as Buffer);
  return hasher.digest('hex');
}

/** Whether `path` already holds exactly the expected bytes. */
export async function isVerifiedCopy(file: ExpectedFile, path: string): Promise<boolean> {
  if ((await sizeOf(path)) !== file.size) return false;
  return (await digestOf(file, path)) === (file.sha256 ?? file.gitOid);
}

export async function fetchVerifiedFile(
  file: ExpectedFile,
  target: string,
  options: FetchFileOptions = {},
): Promise<FetchedFile> {
  await mkdir(dirname(target), { recursive: true });
  if (await isVerifiedCopy(file, target)) {
    options.onBytes?.(file.size);
    return { alreadyPresent: true, resumed: false, fetched: 0 };
  }
  const retries = options.retries ?? 3;
  let fetched = 0;
  let resumed = false;
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) throw downloadCancelled();
    try {
      const r = await transfer(file, target, options);
      return { alreadyPresent: false, fetched: fetched + r.fetched, resumed: resumed || r.resumed };
    } catch (err) {
      if (!(err instanceof TransientError)) throw err;
      fetched += err.fetched;
      resumed = true;
      if (attempt >= retries) {
        throw new ModelError(
          `Downloading ${file.name} failed after ${attempt + 1} attempt(s): ${err.message}. The part fetched so far is kept.`,
          'endpoint-unreachable',
          'Run the download again: it continues where it stopped.',
        );
      }
      try {
        await delay(Math.min(500 * 2 ** attempt, 10_000), undefined, { signal: options.signal });
      } catch {
        throw downloadCancelled();
      }
    }
  }
}

/** One attempt. Throws TransientError for what a retry can fix. */
async function transfer(
  file: ExpectedFile,
  target: string,
  options: FetchFileOptions,
): Promise<{ fetched: number; resumed: boolean }> {
  const part = `${target}.part`;
  let offset = (await sizeOf(part)) ?? 0;
  if (offset > file.size) {
    await rm(part, { force: true });
    offset = 0;
  }
  let fetched = 0;
  let resumed = false;
  if (offset < file.size || file.size === 0) {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const idleMs = options.idleTimeoutMs ?? 60_000;
    let idle = false;
    const stall = () => {
      idle = true;
      controller.abort();
    };
    let timer = setTimeout(stall, idleMs);
    try {
      const headers: Record<string, string> = { ...options.headers };
      if (offset > 0) headers.range = `bytes=${offset}-`;
      let res: Response;
      try {
        res = await fetch(file.url, { headers, signal: controller.signal });
      } catch (err) {
        if (options.signal?.aborted) throw downloadCancelled();
        const why = (err as { cause?: Error }).cause?.message ?? String(err);
        throw new TransientError(`cannot reach ${file.url} (${why})`);
      }
      if (res.status === 416) {
        // The part is not a prefix the server recognises: start the file again.
        await rm(part, { force: true });
        throw new TransientError('the server refused to resume (416)');
      }
      if (res.status === 429 || res.status >= 500)
        throw new TransientError(`the server answered ${res.status}`);
      if (res.status === 401 || res.status === 403) {
        throw new ModelError(
          `Access to ${file.url} was refused (${res.status}).`,
          'endpoint-auth',
          'Give an access token for this repository.',
        );
      }
      if (!res.ok || !res.body)
        throw new ModelError(`Fetching ${file.url} failed (${res.status}).`, 'endpoint-not-found');
      const append =
        offset > 0 &&
        res.status === 206 &&
        (res.headers.get('content-range') ?? '').startsWith(`bytes ${offset}-`);
      if (!append) offset = 0;
      resumed = append;
      const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
      const closed = new Promise<void>((resolveClose, reject) => {
        out.on('close', resolveClose);
        out.on('error', reject);
      });
      const reader = res.body.getReader();
      // Node 20's fetch never settles a pending read when it is aborted right after the last chunk
      // arrived, so every read races the abort itself.
      const abortedRead = new Promise<never>((_, reject) => {
        const fail = () => reject(new Error(idle ? `no data for ${idleMs / 1000} s` : 'aborted'));
        if (controller.signal.aborted) fail();
        else controller.signal.addEventListener('abort', fail, { once: true });
      });
      abortedRead.catch(() => undefined);
      try {
        for (;;) {
          const { done, value: chunk } = await Promise.race([reader.read(), abortedRead]);
          if (done) break;
          clearTimeout(timer);
          timer = setTimeout(stall, idleMs);
          if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
          fetched += chunk.length;
          options.onBytes?.(offset + fetched);
        }
      } catch (err) {
        if (options.signal?.aborted) throw downloadCancelled();
        throw new TransientError(`the transfer broke off (${(err as Error).message})`, fetched);
      } finally {
        reader.cancel().catch(() => undefined);
        out.end();
        await closed;
      }
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
  await verifyAndPlace(file, part, target, options.pinnedBy ?? 'its pinned hash');
  return { fetched, resumed };
}

async function verifyAndPlace(file: ExpectedFile, part: string, target: string, pinnedBy: string) {
  const size = (await sizeOf(part)) ?? 0;
  if (size < file.size) throw new TransientError(`the transfer ended early (${size} of ${file.size} bytes)`);
  const digest = await digestOf(file, part);
  const expected = file.sha256 ?? file.gitOid;
  if (size !== file.size || (expected && digest !== expected)) {
    // A corrupt part must not be resumed from: remove it so the next attempt starts clean.
    await rm(part, { force: true });
    const kind = file.sha256 ? 'sha256' : 'git blob id';
    const what =
      size !== file.size
        ? `expected ${file.size} bytes, got ${size}`
        : `expected ${kind} ${expected}, got ${digest}`;
    throw new ModelError(
      `The downloaded ${file.name} does not match ${pinnedBy} (${what}); it was deleted.`,
      'download-integrity',
      'Run the download again. If it fails the same way, the server (or a proxy) serves a different file than expected.',
    );
  }
  await rename(part, target);
}
