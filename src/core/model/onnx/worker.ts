/**
 * The model worker: owns the onnxruntime session so that tokenisation, forward passes and
 * sampling never run on the caller's thread (the extension host's event loop stays free).
 * Requests are served one at a time in arrival order; see protocol.ts.
 */
import { parentPort } from 'node:worker_threads';
import { ModelError } from '../types';
import { OnnxEngine } from './engine';
import { PrmEngine } from './prmEngine';
import type { SerializedError, WorkerReply, WorkerRequest } from './workerMessages';

const port = parentPort;
if (!port) throw new Error('The model worker must be started as a worker thread.');

let engine: OnnxEngine | undefined;
let prm: PrmEngine | undefined;
let queue: Promise<void> = Promise.resolve();
const abortFlags = new Map<number, Int32Array>();

function send(reply: WorkerReply): void {
  port!.postMessage(reply);
}

function serialize(e: unknown): SerializedError {
  if (e instanceof ModelError) return { message: e.message, code: e.code, hint: e.hint };
  return { message: e instanceof Error ? e.message : String(e), code: 'internal' };
}

function loaded(): OnnxEngine {
  if (!engine)
    throw new ModelError('The model is not loaded.', 'internal', 'Load the model before using it.');
  return engine;
}

function loadedPrm(): PrmEngine {
  if (!prm)
    throw new ModelError(
      'The process reward model is not loaded.',
      'internal',
      'Load it before scoring steps.',
    );
  return prm;
}

/** A request cancelled while it waited in the queue is not started. */
function throwIfCancelled(id: number, what: string): void {
  if (Atomics.load(abortFlags.get(id)!, 0) === 1) throw new ModelError(`${what} was cancelled.`, 'aborted');
}

async function serve(request: WorkerRequest): Promise<void> {
  switch (request.type) {
    case 'load': {
      await engine?.dispose();
      engine = await OnnxEngine.load(request.options);
      send({ type: 'result', id: request.id, result: engine.info });
      return;
    }
    case 'generate': {
      const flag = abortFlags.get(request.id)!;
      const result = await loaded().generate(request.input, request.options, {
        isAborted: () => Atomics.load(flag, 0) === 1,
        onToken: (event) => send({ type: 'token', id: request.id, event }),
      });
      send({ type: 'result', id: request.id, result });
      return;
    }
    case 'generatePlan': {
      throwIfCancelled(request.id, 'The generation');
      const flag = abortFlags.get(request.id)!;
      const result = await loaded().generatePlan(request.input, request.plan, request.options, {
        isAborted: () => Atomics.load(flag, 0) === 1,
        onToken: (event) => send({ type: 'token', id: request.id, event }),
      });
      send({ type: 'result', id: request.id, result });
      return;
    }
    case 'score': {
      throwIfCancelled(request.id, 'Scoring');
      const result = await loaded().score(request.prompt, request.continuation);
      send({ type: 'result', id: request.id, result });
      return;
    }
    case 'loadPrm': {
      await prm?.dispose();
      prm = await PrmEngine.load(request.options);
      send({ type: 'result', id: request.id, result: prm.info });
      return;
    }
    case 'scoreSteps': {
      throwIfCancelled(request.id, 'Step scoring');
      const result = await loadedPrm().scoreSteps(request.problem, request.steps);
      send({ type: 'result', id: request.id, result });
      return;
    }
    case 'dispose': {
      await engine?.dispose();
      await prm?.dispose();
      engine = undefined;
      prm = undefined;
      send({ type: 'result', id: request.id, result: null });
      return;
    }
  }
}

port.on('message', (request: WorkerRequest) => {
  if (request.type === 'abort') {
    // Handled at once, not queued: the flag is what the running request polls.
    const flag = abortFlags.get(request.id);
    if (flag) Atomics.store(flag, 0, 1);
    return;
  }
  if ('abortFlag' in request) {
    abortFlags.set(request.id, new Int32Array(request.abortFlag));
  }
  queue = queue.then(async () => {
    try {
      await serve(request);
    } catch (e) {
      send({ type: 'error', id: request.id, error: serialize(e) });
    } finally {
      abortFlags.delete(request.id);
    }
  });
});
