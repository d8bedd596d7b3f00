/**
 * Runs `stepwise eval …` in a child process and follows it: the editor starts evaluations this
 * way, so the hours of model and sandbox work never run on the extension host. The child reports
 * on stderr as JSON lines (`--progress json`); cancelling sends SIGTERM, on which the CLI stops
 * after journaling what finished and writes a partial report — then SIGKILL if it lingers.
 */
import { spawn } from 'node:child_process';
import type { EvalProgress } from './runner';

export interface ChildEvalDone {
  result: string;
  report: string;
  journal: string;
  complete: boolean;
  cancelled: boolean;
  stoppedBy: { message: string; hint?: string } | null;
}

export interface ChildEvalOptions {
  /** Executable and arguments, e.g. [node, dist/cli.js, 'eval', 'prove', '--limit', '5']. */
  command: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onProgress?(progress: EvalProgress): void;
  onNotice?(message: string): void;
  /** Any other line the child wrote (its error message and hint, warnings). */
  onOutput?(line: string): void;
  /** Milliseconds between SIGTERM and SIGKILL on cancellation (default 15 000). */
  killAfterMs?: number;
}

export interface ChildEvalOutcome {
  exitCode: number | null;
  done: ChildEvalDone | null;
  /** The child's other output, last lines first cut: what to show when it failed. */
  output: string;
}

export function runEvalInChild(options: ChildEvalOptions): Promise<ChildEvalOutcome> {
  const [file, ...args] = options.command;
  const child = spawn(file, [...args, '--progress', 'json'], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let done: ChildEvalDone | null = null;
  const other: string[] = [];
  let buffer = '';
  const handle = (line: string) => {
    if (!line.trim()) return;
    let event: Record<string, unknown> | null = null;
    try {
      const parsed = JSON.parse(line);
      if (parsed && typeof parsed === 'object' && typeof parsed.type === 'string') event = parsed;
    } catch {
      event = null;
    }
    if (event?.type === 'progress') options.onProgress?.(event as unknown as EvalProgress);
    else if (event?.type === 'notice') options.onNotice?.(String(event.message));
    else if (event?.type === 'done') done = event as unknown as ChildEvalDone;
    else {
      other.push(line);
      if (other.length > 200) other.shift();
      options.onOutput?.(line);
    }
  };
  child.stderr.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      handle(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  });
  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    child.kill('SIGTERM');
    killTimer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 15_000);
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      handle(buffer);
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode: code, done, output: other.join('\n') });
    });
  });
}
