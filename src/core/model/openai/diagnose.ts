/**
 * A 404 from an OpenAI-compatible server means one of two things a user can fix: the base URL is
 * wrong (missing or extra `/v1`, a wrong path) or the model name is not one the server serves.
 * These probes tell them apart so the message can say which, and what to set instead.
 */

import { ModelError } from '../types';
import { serverMessage } from './errors';

export type ModelsProbe = { ok: true; models: string[] } | { ok: false };

/** GET `{apiRoot}/models`: which models an API root serves, or that it is not an API root. */
export async function probeModels(apiRoot: string, headers: Record<string, string>, timeoutMs: number) {
  try {
    const res = await fetch(`${apiRoot}/models`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { ok: false } as ModelsProbe;
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    if (!Array.isArray(body?.data)) return { ok: false } as ModelsProbe;
    return { ok: true, models: body.data.map((m) => String(m?.id ?? '')).filter(Boolean) } as ModelsProbe;
  } catch {
    return { ok: false } as ModelsProbe;
  }
}

function wrongModel(model: string, apiRoot: string, served: string[]): ModelError {
  const list =
    served.length > 0
      ? ` It serves: ${served.slice(0, 10).join(', ')}${served.length > 10 ? ', …' : ''}.`
      : '';
  return new ModelError(
    `The endpoint ${apiRoot} does not serve a model named "${model}".${list}`,
    'endpoint-not-found',
    'Set stepwise.model.openai.model to one of the served names (run "Stepwise: Select Model" to pick one).',
  );
}

export interface NotFoundDiagnosis {
  error: ModelError;
  /** An API root that does answer, when it is only the user's own URL without the added `/v1`. */
  switchTo?: string;
}

/**
 * Explains a 404 for `{apiRoot}{path}`. `userRoot` is the URL as the user wrote it, before `/v1`
 * was added; a server that answers there (no `/v1` in its API) is used as it is.
 */
export async function diagnoseNotFound(opts: {
  apiRoot: string;
  userRoot: string;
  path: string;
  model: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}): Promise<NotFoundDiagnosis> {
  const { apiRoot, userRoot, path, model, body, headers, timeoutMs } = opts;
  const said = serverMessage(body);
  const own = await probeModels(apiRoot, headers, timeoutMs);
  if (own.ok) {
    if (model && own.models.length > 0 && !own.models.includes(model)) {
      return { error: wrongModel(model, apiRoot, own.models) };
    }
    if (/model/i.test(said) && /not (found|exist)|does not exist|unknown/i.test(said)) {
      return { error: wrongModel(model, apiRoot, own.models) };
    }
    return {
      error: new ModelError(
        `The endpoint ${apiRoot} serves models but has no ${path} (404${said ? `: ${said}` : ''}).`,
        'endpoint-unsupported',
        path === '/completions'
          ? 'This server only offers chat completions; raw-prompt generation and scoring need /v1/completions.'
          : 'Check that the server is an OpenAI-compatible API server.',
      ),
    };
  }
  if (userRoot !== apiRoot && (await probeModels(userRoot, headers, timeoutMs)).ok) {
    return {
      error: new ModelError(`The endpoint answers at ${userRoot}, not ${apiRoot}.`, 'endpoint-not-found'),
      switchTo: userRoot,
    };
  }
  const origin = new URL(apiRoot).origin;
  for (const candidate of [`${origin}/v1`, origin]) {
    if (candidate === apiRoot) continue;
    if ((await probeModels(candidate, headers, timeoutMs)).ok) {
      return {
        error: new ModelError(
          `There is no OpenAI-compatible API at ${apiRoot} (404 for ${path} and /models), but there is one at ${candidate}.`,
          'endpoint-not-found',
          `Set stepwise.model.openai.baseUrl to ${candidate} (with or without /v1 is fine).`,
        ),
      };
    }
  }
  return {
    error: new ModelError(
      `There is no OpenAI-compatible API at ${apiRoot} (404 for ${path} and /models${said ? `: ${said}` : ''}).`,
      'endpoint-not-found',
      'Set stepwise.model.openai.baseUrl to the server address, with or without /v1, for example http://127.0.0.1:8080/v1 (llama.cpp, vLLM) or http://127.0.0.1:11434/v1 (Ollama).',
    ),
  };
}
