/**
 * Base URL handling. Users paste the server root (`http://127.0.0.1:8080`), the API root
 * (`http://127.0.0.1:8080/v1`) or even a full endpoint URL; all of them mean the same API root.
 */

import { ModelError } from '../types';

const ENDPOINT_SUFFIXES = ['/chat/completions', '/completions', '/models', '/embeddings'];

/** Returns the API root ending in `/v1` (or in the user's own versioned path, e.g. `/openai/v1`). */
export function normaliseBaseUrl(raw: string): string {
  return parseBaseUrl(raw).apiRoot;
}

/**
 * `apiRoot`: the normalised root; `asGiven`: the user's URL without an endpoint suffix and without the
 * added `/v1`, tried when a server turns out to have no `/v1` in its API.
 */
export function parseBaseUrl(raw: string): { apiRoot: string; asGiven: string } {
  const trimmed = raw.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ModelError(
      `The endpoint base URL "${trimmed}" is not a valid URL.`,
      'endpoint-not-found',
      'Set stepwise.model.openai.baseUrl to something like http://127.0.0.1:8080/v1 (with or without /v1).',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelError(
      `The endpoint base URL "${trimmed}" must start with http:// or https://.`,
      'endpoint-not-found',
      'Set stepwise.model.openai.baseUrl to something like http://127.0.0.1:8080/v1.',
    );
  }
  let path = url.pathname.replace(/\/+$/, '');
  for (const suffix of ENDPOINT_SUFFIXES) {
    if (path.endsWith(suffix)) {
      path = path.slice(0, -suffix.length);
      break;
    }
  }
  url.search = '';
  url.hash = '';
  url.pathname = path;
  const asGiven = url.toString().replace(/\/+$/, '');
  // An explicit version segment (`/v1`, `/api/v1`, `/v1beta`) is the user's choice; otherwise add `/v1`.
  if (!/\/v\d+[a-z0-9]*$/i.test(path)) url.pathname = `${path}/v1`;
  return { apiRoot: url.toString().replace(/\/+$/, ''), asGiven };
}

/** The same URL with the trailing `/v1` removed: where servers put their non-OpenAI extras. */
export function serverRoot(apiRoot: string): string {
  return apiRoot.replace(/\/v\d+[a-z0-9]*$/i, '');
}
