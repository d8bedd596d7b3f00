/**
 * Worker-thread entry of a model install, so that hashing, inflating and converting never run on
 * the editor's extension-host thread. One install per worker: `{ type: 'install' }` starts it,
 * `{ type: 'cancel' }` aborts it; progress, the result or the error come back as messages.
 */

import { parentPort } from 'node:worker_threads';
import { installById } from './local';
import type { InstallWorkerReply, InstallWorkerRequest } from './installWorkerMessages';

const port = parentPort;
if (port) {
  const controller = new AbortController();
  const post = (reply: InstallWorkerReply) => port.postMessage(reply);
  port.on('message', (request: InstallWorkerRequest) => {
    if (request.type === 'cancel') {
      controller.abort();
      return;
    }
    installById(request.id, {
      variant: request.variant,
      modelDir: request.modelDir,
      filesBaseUrl: request.filesBaseUrl,
      env: request.env,
      signal: controller.signal,
      onProgress: (progress) => post({ type: 'progress', progress }),
    }).then(
      (result) => post({ type: 'done', result }),
      (err: Error & { code?: string; hint?: string }) =>
        post({ type: 'error', message: err.message, code: err.code, hint: err.hint }),
    );
  });
}
