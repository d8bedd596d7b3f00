/**
 * One streamed OpenAI-style request read into a StreamAccumulator: SSE events as they arrive, a
 * server that answers with plain JSON taken as it is, an empty stream asked again without
 * streaming (so the server says why), and a stream cut short reported as such.
 */

import { ModelError } from '../types';
import type { StreamAccumulator } from './accumulator';
import type { EndpointClient } from './client';
import { readBody, readText, type HttpPolicy } from './http';
import { SseParser } from './sse';

/** Streams one request into `acc`; true when the caller cancelled (what arrived is kept). */
export async function streamInto(
  client: EndpointClient,
  policy: HttpPolicy,
  path: string,
  body: Record<string, unknown>,
  acc: StreamAccumulator,
  signal: AbortSignal,
): Promise<boolean> {
  const url = `${client.apiRoot}${path}`;
  let events = 0;
  try {
    const opened = await client.post(path, body, signal);
    const parser = new SseParser();
    const contentType = opened.response.headers.get('content-type') ?? '';
    if (contentType.includes('application/json')) {
      // A server that ignores `stream: true` answers with one JSON object; take it as it is.
      acc.handle(await readText(opened, policy, url, signal));
      acc.sawDone = true;
      return false;
    }
    for await (const chunk of readBody(opened, policy, url, signal)) {
      for (const event of parser.push(chunk)) {
        events++;
        acc.handle(event.data);
      }
      if (acc.sawDone) break;
    }
    if (!acc.sawDone) {
      for (const event of parser.end()) {
        events++;
        try {
          acc.handle(event.data);
        } catch (err) {
          // An event the stream's end cut short is a closed connection, not a server that
          // speaks another format.
          if (err instanceof ModelError && err.code === 'endpoint-malformed') throw closedMidStream(url, acc);
          throw err;
        }
      }
    }
  } catch (err) {
    if (err instanceof ModelError && err.code === 'aborted') return true;
    throw err;
  }
  if (events === 0 && body.stream) {
    // An empty stream is how some servers (llama-cpp-python) fail once the headers are out, e.g.
    // for a prompt longer than their window. Asked again without streaming, they say why.
    const { stream_options: _, ...rest } = body;
    return streamInto(client, policy, path, { ...rest, stream: false }, acc, signal);
  }
  if (!acc.sawDone && !acc.allFinished()) throw closedMidStream(url, acc);
  return false;
}

function closedMidStream(url: string, acc: StreamAccumulator): ModelError {
  const tokens = [...acc.sequences.values()].reduce((n, q) => n + q.tokens.length, 0);
  return new ModelError(
    `The server closed the connection in the middle of a response from ${url} (no [DONE] and no finish reason, after ${tokens} tokens).`,
    'endpoint-malformed',
    "The server may have crashed or a proxy cut the connection; check the server's log and try again.",
  );
}
