/**
 * One confined process: its output captured up to a cap, and a results channel (file descriptor 3,
 * a pipe the host created) read line by line up to a cap. Nothing is ever read from a file the
 * process could have replaced: a FIFO, a symlink to /dev/zero or a huge file in its folder are
 * never opened by the host. The process runs in its own process group, killed as a whole when the
 * host's timer fires, when the caller aborts, or when the channel overflows.
 */
import { spawn } from 'node:child_process';
import { trackProcessGroup } from './cleanup';

export type KillReason = 'timeout' | 'abort' | 'channel-overflow' | 'watchdog' | 'memory';

export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  killedFor?: KillReason;
  /** Standard output and error, interleaved, cut to the cap. */
  output: string;
  /** Whether the output was cut. */
  outputCut: boolean;
}

export interface ConfinedProcess {
  done: Promise<ProcessEnd>;
  /** The first process of the run (undefined when it could not be started). */
  pid?: number;
  kill(reason: KillReason): void;
}

export interface ProcessOptions {
  cwd: string;
  env: Record<string, string>;
  /** The whole run's limit: past it the process group is killed (reason `timeout`). */
  limitMs: number;
  outputCapBytes: number;
  /** Bytes the results channel may carry in all; past it the process is killed. */
  channelCapBytes: number;
  onChannelLine?: (line: string) => void;
  /** Which descriptor of the process carries results: 3 (default), or 1 when stdout is the channel. */
  channelFd?: 1 | 3;
  signal?: AbortSignal;
  /** A descriptor handed to the process as its fd 4 (bubblewrap reads its seccomp filter there). */
  fd4?: number;
}

export function startConfined(cmd: string[], opts: ProcessOptions): ConfinedProcess {
  const child = spawn(cmd[0], cmd.slice(1), {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...opts.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', ...(opts.fd4 === undefined ? [] : [opts.fd4])],
  });
  const untrack = child.pid ? trackProcessGroup(child.pid) : () => undefined;
  let killedFor: KillReason | undefined;
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const kill = (reason: KillReason) => {
    killedFor ??= reason;
    killGroup();
  };
  const chunks: Buffer[] = [];
  let kept = 0;
  let cut = false;
  const capture = (b: Buffer) => {
    if (kept >= opts.outputCapBytes) {
      cut = true;
      return;
    }
    const take = b.subarray(0, opts.outputCapBytes - kept);
    if (take.length < b.length) cut = true;
    chunks.push(take);
    kept += take.length;
  };
  const channelFd = opts.channelFd ?? 3;
  if (channelFd !== 1) child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);

  const channel = child.stdio[channelFd] as NodeJS.ReadableStream | null;
  let carried = 0;
  let pending = '';
  channel?.on('data', (b: Buffer) => {
    carried += b.length;
    if (carried > opts.channelCapBytes) {
      channel.removeAllListeners('data');
      kill('channel-overflow');
      return;
    }
    pending += b.toString('utf8');
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      opts.onChannelLine?.(line);
    }
  });

  const timer = setTimeout(() => kill('timeout'), opts.limitMs);
  const onAbort = () => kill('abort');
  opts.signal?.addEventListener('abort', onAbort);
  const done = new Promise<ProcessEnd>((resolve) => {
    let spawnError: Error | undefined;
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      const reason = killedFor;
      // Whatever the process started in its group goes with it.
      killGroup();
      untrack();
      if (pending) opts.onChannelLine?.(pending);
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({
        code,
        signal,
        killedFor: reason,
        output: spawnError ? `${output}${spawnError.message}` : output,
        outputCut: cut,
      });
    };
    let drainTimer: NodeJS.Timeout | undefined;
    child.on('error', (err) => {
      spawnError = err;
      if (!child.pid) finish(null, null);
    });
    // A descendant that left the process group could hold the pipes open for ever: once the
    // process itself has exited, its pipes get a short grace to drain and are then closed.
    child.on('exit', () => {
      drainTimer = setTimeout(() => {
        for (const s of child.stdio) s?.destroy();
      }, 2000);
    });
    // 'close' fires once the process has exited and every pipe is drained (or destroyed).
    child.on('close', (code, signal) => finish(code, signal));
  });
  return { done, kill, pid: child.pid };
}
