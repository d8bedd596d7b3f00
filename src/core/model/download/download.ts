/**
 * Downloads one ONNX variant of a model repository from a server in the hub's URL layout into a
 * folder. Each file goes to `<name>.part` first, resumes from there with an HTTP Range request after
 * an interruption, and is renamed into place only once its size and hash match the listing.
 */

import { resolve, sep } from 'node:path';
import { ModelError } from '../types';
import { fetchVerifiedFile } from './fetchFile';
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
    const got = await fetchVerifiedFile(
      {
        name: file.path,
        url: resolveUrl(where, file.path),
        size: file.size,
        sha256: file.sha256,
        gitOid: file.gitOid,
      },
      target,
      {
        headers: hubHeaders(options.token, options.headers),
        signal: options.signal,
        retries: options.retries,
        idleTimeoutMs: options.idleTimeoutMs,
        onBytes: report,
        pinnedBy: 'the repository listing',
      },
    );
    bytesFetched += got.fetched;
    results.push({
      path: file.path,
      size: file.size,
      alreadyPresent: got.alreadyPresent,
      resumed: got.resumed,
      fetchedBytes: got.fetched,
    });
    report(file.size);
    doneBytes += file.size;
  }
  return { destDir: options.destDir, files: results, bytesFetched };
}
