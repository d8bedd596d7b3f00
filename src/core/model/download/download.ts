/**
 * Downloads one ONNX variant of a model repository from a server in the hub's URL layout into a
 * folder. Each file goes to `<name>.part` first, resumes from there with an HTTP Range request after
 * an interruption, and is renamed into place only once its size and hash match the listing.
 */

import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ModelError } from '../types';
import {
  hubHeaders,
  listRepoFiles,
  resolveUrl,
  selectVariantFiles,
  type OnnxVariant,
  type RepoFile,
} from './hubFiles';

export interface DownloadProgress {
  /** The file being transferred, `/`-separated as in the repository. */
  file: string;
  fileBytes: number;
  fileTotal: number;
  /** Bytes done over all selected files (files already present count as done). */
  bytes: number;
  totalBytes: number;
  filesDone: number;
  filesTotal: number;
}

export interface DownloadOptions {
  /** `owner/name`, e.g. `onnx-community/SmolLM2-135M-Instruct`. */
  repoId: string;
  /** Branch, tag or commit. Default `main`. */
  revision?: string;
  /** The hub, or a mirror with the same URL layout. Default `https://huggingface.co`. */
  baseUrl?: string;
  destDir: string;
  /** Which ONNX weights to fetch (with config and tokenizer files). Default `fp32`. */
  variant?: OnnxVariant;
  /** Exact repository paths to fetch instead of a variant's selection. */
  files?: string[];
  /** Access token for gated or private repositories. */
  token?: string;
  headers?: Record<string, string>;
  onProgress?: (progress: DownloadProgress) => void;
  signal?: AbortSignal;
  /** Attempts to resume a file after a dropped connection or a 5xx/429. Default 3. */
  retries?: number;
  /** Milliseconds without a byte before a transfer counts as dropped. Default 60000. */
  idleTimeoutMs?: number;
}

export interface DownloadedFile {
  path: string;
  size: number;
  /** True when a verified copy was already in place and nothing was fetched. */
  alreadyPresent: boolean;
  /** True when an earlier `.part` was continued with a Range request. */
  resumed: boolean;
  /** Bytes of this file fetched by this call (less than `size` after a resume). */
  fetchedBytes: number;
}

export interface DownloadResult {
  destDir: string;
  files: DownloadedFile[];
  bytesFetched: number;
}

class TransientError extends Error {}

function cancelled(): ModelError {
  return new ModelError(
    'The download was cancelled; what was fetched is kept and the next download resumes it.',
    'aborted',
  );
}

/** The digest a repository listing gives for a file: sha256 for LFS files, the git blob id otherwise. */
function newHasher(file: RepoFile): Hash | undefined {
  if (file.sha256) return createHash('sha256');
  if (file.gitOid) return createHash('sha1').update(`blob ${file.size}\0`);
  return undefined;
}

function expectedDigest(file: RepoFile): string | undefined {
  return file.sha256 ?? file.gitOid;
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}

async function hashInto(hasher: Hash | undefined, path: string): Promise<void> {
  if (!hasher) return;
  for await (const chunk of createReadStream(path)) hasher.update(chunk as Buffer);
}

/** Repository paths become paths under destDir; anything that would escape it is refused. */
function localPath(destDir: string, repoPath: string): string {
  const root = resolve(destDir);
  const target = resolve(root, ...repoPath.split('/'));
  if (!target.startsWith(root + sep)) {
    throw new ModelError(
      `The repository lists a file outside the model folder: "${repoPath}".`,
      'model-folder',
    );
  }
  return target;
}

export async function downloadModel(options: DownloadOptions): Promise<DownloadResult> {
  const where = {
    repoId: options.repoId.trim(),
    revision: options.revision ?? 'main',
    baseUrl: (options.baseUrl ?? 'https://huggingface.co').replace(/\/+$/, ''),
  };
  const listed = await listRepoFiles(where, options);
  let files: RepoFile[];
  if (options.files) {
    const missing = options.files.filter((p) => !listed.some((f) => f.path === p));
    if (missing.length > 0) {
      throw new ModelError(`The repository ${where.repoId} has no ${missing.join(', ')}.`, 'model-folder');
    }
    files = listed.filter((f) => options.files!.includes(f.path));
  } else {
    files = selectVariantFiles(listed, options.variant ?? 'fp32');
  }

  const totalBytes = files.reduce((s, f) => s + f.size, 0);
  let doneBytes = 0;
  let bytesFetched = 0;
  const results: DownloadedFile[] = [];
  for (const file of files) {
    const target = localPath(options.destDir, file.path);
    await mkdir(dirname(target), { recursive: true });
    const report = (fileBytes: number) =>
      options.onProgress?.({
        file: file.path,
        fileBytes,
        fileTotal: file.size,
        bytes: doneBytes + fileBytes,
        totalBytes,
        filesDone: results.length,
        filesTotal: files.length,
      });
    if (await alreadyComplete(file, target)) {
      results.push({
        path: file.path,
        size: file.size,
        alreadyPresent: true,
        resumed: false,
        fetchedBytes: 0,
      });
    } else {
      const got = await fetchWithRetries(file, target, resolveUrl(where, file.path), options, report);
      bytesFetched += got.fetched;
      results.push({
        path: file.path,
        size: file.size,
        alreadyPresent: false,
        resumed: got.resumed,
        fetchedBytes: got.fetched,
      });
    }
    report(file.size);
    doneBytes += file.size;
  }
  return { destDir: options.destDir, files: results, bytesFetched };
}

async function alreadyComplete(file: RepoFile, target: string): Promise<boolean> {
  if ((await sizeOf(target)) !== file.size) return false;
  const hasher = newHasher(file);
  if (!hasher) return true;
  await hashInto(hasher, target);
  return hasher.digest('hex') === expectedDigest(file);
}

async function fetchWithRetries(
  file: RepoFile,
  target: string,
  url: string,
  options: DownloadOptions,
  report: (fileBytes: number) => void,
): Promise<{ fetched: number; resumed: boolean }> {
  const retries = options.retries ?? 3;
  let fetched = 0;
  let resumed = false;
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await transfer(file, target, url, options, report);
      return { fetched: fetched + r.fetched, resumed: resumed || r.resumed };
    } catch (err) {
      if (!(err instanceof TransientError)) throw err;
      fetched += (err as TransientError & { fetched?: number }).fetched ?? 0;
      resumed = true;
      if (attempt >= retries) {
        throw new ModelError(
          `Downloading ${file.path} failed after ${attempt + 1} attempt(s): ${err.message}. The part fetched so far is kept.`,
          'endpoint-unreachable',
          'Run the download again: it continues where it stopped.',
        );
      }
      try {
        await delay(Math.min(500 * 2 ** attempt, 10_000), undefined, { signal: options.signal });
      } catch {
        throw cancelled();
      }
    }
  }
}

/** One attempt at one file. Throws TransientError for what a retry can fix. */
async function transfer(
  file: RepoFile,
  target: string,
  url: string,
  options: DownloadOptions,
  report: (fileBytes: number) => void,
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
    let timer = setTimeout(() => controller.abort(), idleMs);
    try {
      const headers = hubHeaders(options.token, options.headers);
      if (offset > 0) headers.range = `bytes=${offset}-`;
      let res: Response;
      try {
        res = await fetch(url, { headers, signal: controller.signal });
      } catch (err) {
        if (options.signal?.aborted) throw cancelled();
        throw new TransientError(`cannot reach ${url} (${(err as { cause?: Error }).cause?.message ?? err})`);
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
          `Access to ${url} was refused (${res.status}).`,
          'endpoint-auth',
          'Give an access token for this repository.',
        );
      }
      if (!res.ok || !res.body)
        throw new ModelError(`Fetching ${url} failed (${res.status}).`, 'endpoint-not-found');
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
      try {
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          clearTimeout(timer);
          timer = setTimeout(() => controller.abort(), idleMs);
          if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
          fetched += chunk.length;
          report(offset + fetched);
        }
      } catch (err) {
        if (options.signal?.aborted) throw cancelled();
        throw Object.assign(new TransientError(`the transfer broke off (${(err as Error).message})`), {
          fetched,
        });
      } finally {
        out.end();
        await closed;
      }
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
  await verifyAndPlace(file, part, target);
  return { fetched, resumed };
}

async function verifyAndPlace(file: RepoFile, part: string, target: string): Promise<void> {
  const size = (await sizeOf(part)) ?? 0;
  if (size < file.size) throw new TransientError(`the transfer ended early (${size} of ${file.size} bytes)`);
  const hasher = newHasher(file);
  await hashInto(hasher, part);
  const digest = hasher?.digest('hex');
  const expected = expectedDigest(file);
  if (size !== file.size || (expected && digest !== expected)) {
    // A corrupt part must not be resumed from: remove it so the next attempt starts clean.
    await rm(part, { force: true });
    const what =
      size !== file.size
        ? `${size} bytes instead of ${file.size}`
        : `${file.sha256 ? 'sha256' : 'git blob id'} ${digest} instead of ${expected}`;
    throw new ModelError(
      `The downloaded ${file.path} does not match the repository listing (${what}); it was deleted.`,
      'download-integrity',
      'Run the download again. If it fails the same way, the server (or a proxy) serves a different file than it lists.',
    );
  }
  await rename(part, target);
}
