/**
 * The file list of a model repository in the Hugging Face hub's URL layout, and the subset one ONNX
 * variant needs: config and tokenizer files at the top, the chosen `onnx/model*.onnx` and its
 * external-data files. Nothing else is downloaded (other variants can be gigabytes).
 */

import { ModelError } from '../types';

export interface RepoFile {
  /** Path inside the repository, `/`-separated. */
  path: string;
  size: number;
  /** sha256 of the content, for files stored in LFS (`lfs.oid`). */
  sha256?: string;
  /** Git blob id (sha1 of `blob <size>\0<content>`), for small files stored in git itself. */
  gitOid?: string;
}

/** ONNX weight variants as onnx-community names them (`onnx/model_<suffix>.onnx`). */
export const ONNX_VARIANTS = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
  int8: 'model_int8.onnx',
  uint8: 'model_uint8.onnx',
  q4: 'model_q4.onnx',
  q4f16: 'model_q4f16.onnx',
  bnb4: 'model_bnb4.onnx',
} as const;
export type OnnxVariant = keyof typeof ONNX_VARIANTS;

/** Top-level files a tokenizer and generation config can need. */
const SUPPORT_FILE = /^[^/]+\.(json|txt|jinja|model|tiktoken)$/;

export interface HubLocation {
  repoId: string;
  revision: string;
  baseUrl: string;
}

export function hubHeaders(token?: string, extra?: Record<string, string>): Record<string, string> {
  return { ...extra, ...(token ? { authorization: `Bearer ${token}` } : {}) };
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

export function treeUrl({ repoId, revision, baseUrl }: HubLocation): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/models/${encodePath(repoId)}/tree/${encodeURIComponent(revision)}?recursive=true`;
}

export function resolveUrl({ repoId, revision, baseUrl }: HubLocation, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${encodePath(repoId)}/resolve/${encodeURIComponent(revision)}/${encodePath(path)}`;
}

/** Entries of a tree listing; entries that are not well-formed files are skipped, never thrown on. */
export function parseTree(json: unknown): RepoFile[] {
  if (!Array.isArray(json)) return [];
  const files: RepoFile[] = [];
  for (const e of json as Record<string, unknown>[]) {
    if (!e || e.type !== 'file' || typeof e.path !== 'string' || typeof e.size !== 'number') continue;
    const lfs = e.lfs as { oid?: unknown; size?: unknown } | undefined;
    const file: RepoFile = { path: e.path, size: typeof lfs?.size === 'number' ? lfs.size : e.size };
    if (typeof lfs?.oid === 'string') file.sha256 = lfs.oid;
    else if (typeof e.oid === 'string') file.gitOid = e.oid;
    files.push(file);
  }
  return files;
}

export function revisionUrl({ repoId, revision, baseUrl }: HubLocation): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/models/${encodePath(repoId)}/revision/${encodeURIComponent(revision)}?blobs=true`;
}

/** The `siblings` of a model-info answer (`?blobs=true` adds sizes and hashes); for servers without the tree API. */
export function parseSiblings(json: unknown): RepoFile[] {
  const siblings = (json as { siblings?: unknown })?.siblings;
  if (!Array.isArray(siblings)) return [];
  const files: RepoFile[] = [];
  for (const e of siblings as Record<string, unknown>[]) {
    if (!e || typeof e.rfilename !== 'string') continue;
    const lfs = e.lfs as { sha256?: unknown; size?: unknown } | undefined;
    const size = typeof lfs?.size === 'number' ? lfs.size : e.size;
    if (typeof size !== 'number') continue;
    const file: RepoFile = { path: e.rfilename, size };
    if (typeof lfs?.sha256 === 'string') file.sha256 = lfs.sha256;
    else if (typeof e.blobId === 'string') file.gitOid = e.blobId;
    files.push(file);
  }
  return files;
}

/** The `rel="next"` URL of a paginated listing (the hub pages large trees with a Link header). */
function nextPage(link: string | null): string | undefined {
  const m = link?.match(/<([^>]+)>\s*;\s*rel="?next"?/);
  return m?.[1];
}

/**
 * Every file of the repository with size and hash: the tree API (paginated), or for servers
 * without it the model-info API's sibling list.
 */
export async function listRepoFiles(
  where: HubLocation,
  opts: { token?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<RepoFile[]> {
  const files: RepoFile[] = [];
  let url: string | undefined = treeUrl(where);
  while (url) {
    const res = await getListing(url, where, opts);
    if (res.status === 404 && files.length === 0) {
      const info = await getListing(revisionUrl(where), where, opts);
      if (info.ok) return parseSiblings(await info.json().catch(() => undefined));
    }
    if (!res.ok) throw listingError(res.status, where);
    files.push(...parseTree(await res.json().catch(() => undefined)));
    url = nextPage(res.headers.get('link'));
  }
  return files;
}

async function getListing(
  url: string,
  where: HubLocation,
  opts: { token?: string; headers?: Record<string, string>; signal?: AbortSignal },
): Promise<Response> {
  try {
    return await fetch(url, { headers: hubHeaders(opts.token, opts.headers), signal: opts.signal });
  } catch (err) {
    if (opts.signal?.aborted) throw new ModelError('The download was cancelled.', 'aborted');
    const why = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
    throw new ModelError(
      `Cannot reach ${where.baseUrl} to list ${where.repoId} (${why}).`,
      'endpoint-unreachable',
      'Check the network connection, or give the address of a local mirror with the same URL layout.',
    );
  }
}

function listingError(status: number, where: HubLocation): ModelError {
  if (status === 401 || status === 403) {
    return new ModelError(
      `${where.baseUrl} refused access to ${where.repoId} (${status}).`,
      'endpoint-auth',
      'The repository may be gated or private: accept its terms on the hub and give an access token.',
    );
  }
  if (status === 404) {
    return new ModelError(
      `${where.baseUrl} has no model repository "${where.repoId}" at revision "${where.revision}".`,
      'endpoint-not-found',
      'Check the repository id (owner/name, e.g. onnx-community/SmolLM2-135M-Instruct) and the revision.',
    );
  }
  return new ModelError(
    `${where.baseUrl} failed to list ${where.repoId} (${status}).`,
    'endpoint-server',
    'Try again later.',
  );
}

/** The files one variant needs; a clear error naming the variants present when it is missing. */
export function selectVariantFiles(files: RepoFile[], variant: OnnxVariant): RepoFile[] {
  const onnxName = `onnx/${ONNX_VARIANTS[variant]}`;
  if (!files.some((f) => f.path === onnxName)) {
    const present = (Object.keys(ONNX_VARIANTS) as OnnxVariant[]).filter((v) =>
      files.some((f) => f.path === `onnx/${ONNX_VARIANTS[v]}`),
    );
    throw new ModelError(
      `The repository has no ${onnxName} (variant "${variant}").`,
      'model-folder',
      present.length > 0
        ? `Variants it has: ${present.join(', ')}.`
        : 'It has no onnx/model*.onnx at all: pick an onnx-community-style repository.',
    );
  }
  const dataFile = new RegExp(`^${onnxName.replace(/\./g, '\\.')}_data(_\\d+)?$`);
  return files.filter((f) => SUPPORT_FILE.test(f.path) || f.path === onnxName || dataFile.test(f.path));
}
