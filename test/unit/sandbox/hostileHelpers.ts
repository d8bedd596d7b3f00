/**
 * Helpers of the hostile-case suite (issue 16): the `stepwise` CLI in its own process, bounded in
 * time and memory so that a hang or a memory blow-up is a failed test, never a stuck suite.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const CLI = path.resolve(__dirname, '../../../src/cli/main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Why the helper killed the CLI, if it did. */
  killed?: 'time' | 'memory';
  peakRssMb: number;
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs `stepwise ARGS`; past `limitMs` or `maxRssMb` the CLI is killed and the result says so.
 * `onStart` gets the child (to signal it); `env` is added to a copy of this process's environment.
 */
export function cli(
  args: string[],
  opts: {
    limitMs?: number;
    maxRssMb?: number;
    env?: Record<string, string>;
    cwd?: string;
    onStart?: (pid: number) => void;
  } = {},
): Promise<CliResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...opts.env },
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  let killed: CliResult['killed'];
  let peak = 0;
  const watch = setInterval(() => {
    if (!child.pid) return;
    peak = Math.max(peak, rssMb(child.pid));
    if (peak > (opts.maxRssMb ?? 1500)) {
      killed = 'memory';
      child.kill('SIGKILL');
    }
  }, 50);
  const timer = setTimeout(() => {
    killed = 'time';
    child.kill('SIGKILL');
  }, opts.limitMs ?? 60_000);
  if (child.pid) opts.onStart?.(child.pid);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(watch);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, killed, peakRssMb: peak });
    });
  });
}

/** A fresh folder under the system temp folder, removed by `cleanup`. */
export function scratch(prefix = 'stepwise-hostile-'): {
  dir: string;
  file: (name: string, text: string) => string;
  cleanup: () => void;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return {
    dir,
    file: (name, text) => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, text);
      return p;
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A private TMPDIR for one CLI run, so that what the run leaves behind can be seen. */
export function privateTmp(root: string): string {
  const dir = path.join(root, 'tmp');
  fs.mkdirSync(dir, { recursive: true, mode: 0o777 });
  fs.chmodSync(dir, 0o777);
  return dir;
}

/** pids cgroups left by the CLI process `pid` (named after it), if this machine has them. */
export function leftoverCgroups(pid: number): string[] {
  try {
    return fs.readdirSync('/sys/fs/cgroup/pids').filter((n) => n.startsWith(`stepwise-${pid}-`));
  } catch {
    return [];
  }
}

/** Polls `check` until it returns a value or the deadline passes. */
export async function until<T>(what: string, check: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The verdict statuses and summary of `stepwise sandbox --json`. */
export function verdicts(r: CliResult): {
  statuses: string[];
  summary: Record<string, number>;
  inProcess: unknown;
  outputs: string[];
  raw: Record<string, unknown>;
} {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(
      `stepwise sandbox gave no JSON (exit ${r.code}, ${r.killed ?? ''}): ${r.stderr.slice(-1500)}`,
    );
  }
  const list = raw.verdicts as { status: string; output: string }[];
  return {
    statuses: list.map((v) => v.status),
    summary: raw.summary as Record<string, number>,
    inProcess: raw.inProcess,
    outputs: list.map((v) => v.output),
    raw,
  };
}
