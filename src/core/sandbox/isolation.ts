import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { IsolationReport } from './types';

export interface Confinement {
  /** Prefix that runs a command confined: [] when nothing can confine it. */
  prefix(workDir: string, limits: Limits): string[];
  report: IsolationReport;
  /** Called before a run in `workDir`. */
  prepare(workDir: string): void;
  /** Called after a run: removes what `prefix` set up. */
  release(workDir: string): Promise<void>;
}

let probed: { bwrap: string | null; pidsCgroup: string | null } | undefined;

const PIDS_ROOT = '/sys/fs/cgroup/pids';

/** Finds out once what this machine can do: bubblewrap, and a writable pids cgroup (as root). */
function probe(): { bwrap: string | null; pidsCgroup: string | null } {
  if (probed) return probed;
  const bwrap = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => fs.existsSync(p)) ?? null;
  let works = false;
  if (bwrap && process.platform === 'linux') {
    const args = [
      '--ro-bind',
      '/',
      '/',
      '--unshare-all',
      '--die-with-parent',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      'true',
    ];
    works = spawnSync(bwrap, args, { timeout: 10_000 }).status === 0;
  }
  let pidsCgroup: string | null = null;
  if (process.getuid?.() === 0 && fs.existsSync(PIDS_ROOT)) {
    const probeDir = path.join(PIDS_ROOT, `stepwise-probe-${process.pid}`);
    try {
      fs.mkdirSync(probeDir);
      fs.rmdirSync(probeDir);
      pidsCgroup = PIDS_ROOT;
    } catch {
      pidsCgroup = null;
    }
  }
  probed = { bwrap: works ? bwrap : null, pidsCgroup };
  return probed;
}

/** How many processes this user runs now; the limit for a non-root sandbox sits above it. */
function ownProcessCount(): number {
  const uid = process.getuid?.();
  let count = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.statSync(path.join('/proc', entry)).uid === uid) count++;
    } catch {
      // The process ended while we looked.
    }
  }
  return count;
}

export interface Limits {
  memoryMb: number | null;
  processes: number;
  fileMb: number;
}

/**
 * How generated code is confined here. On Linux with bubblewrap: a read-only view of the whole
 * filesystem except the test folder (a private /tmp would hide interpreters and projects that
 * live under /tmp), no network at all (a new network namespace
 * has only its own loopback), its own PID namespace, no capabilities, killed with its parent.
 * Memory and file size are capped with rlimits. Process count: root ignores RLIMIT_NPROC, so as
 * root a pids cgroup caps it; otherwise RLIMIT_NPROC above the user's current count. Elsewhere
 * the report says plainly what is not isolated.
 */
export function confinement(): Confinement {
  const { bwrap, pidsCgroup } = probe();
  const isRoot = process.getuid?.() === 0;
  const rlimits = (limits: Limits) => [
    '/usr/bin/prlimit',
    ...(isRoot ? [] : [`--nproc=${ownProcessCount() + limits.processes}`]),
    `--fsize=${limits.fileMb * 1024 * 1024}`,
    ...(limits.memoryMb ? [`--as=${limits.memoryMb * 1024 * 1024}`] : []),
    '--',
  ];
  const cgroupFor = (dir: string) =>
    pidsCgroup ? path.join(pidsCgroup, `stepwise-${path.basename(dir)}`) : null;
  const enterCgroup = (dir: string, limits: Limits): string[] => {
    const group = cgroupFor(dir);
    if (!group) return [];
    fs.mkdirSync(group, { recursive: true });
    fs.writeFileSync(path.join(group, 'pids.max'), String(limits.processes));
    return ['/bin/sh', '-c', `echo $$ > ${group}/cgroup.procs && exec "$@"`, 'stepwise-sandbox'];
  };
  const processNote = pidsCgroup
    ? 'capped (pids cgroup)'
    : isRoot
      ? 'NOT capped (root without a pids cgroup); timeouts still apply'
      : 'capped (process-count limit)';
  if (!bwrap) {
    const canLimit = process.platform === 'linux' && fs.existsSync('/usr/bin/prlimit');
    return {
      prefix: (dir, limits) => [...enterCgroup(dir, limits), ...(canLimit ? rlimits(limits) : [])],
      prepare: () => undefined,
      release: (dir) => releaseCgroup(cgroupFor(dir)),
      report: {
        isolated: false,
        filesystem: 'NOT isolated: generated code can read and write wherever you can.',
        network: 'NOT isolated: generated code can reach the network.',
        memory: canLimit ? 'capped (address-space limit)' : 'not capped on this platform',
        processes: canLimit ? processNote : 'not capped on this platform',
        summary: `Not isolated on ${os.platform()}: bubblewrap is unavailable, so tests run with timeouts${canLimit ? ' and resource limits' : ''} only. Run them only on code you trust.`,
      },
    };
  }
  return {
    prepare: () => undefined,
    release: (dir) => releaseCgroup(cgroupFor(dir)),
    prefix: (dir, limits) => [
      ...enterCgroup(dir, limits),
      bwrap,
      '--ro-bind',
      '/',
      '/',
      '--bind',
      dir,
      dir,
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      '--chdir',
      dir,
      '--setenv',
      'TMPDIR',
      dir,
      '--setenv',
      'HOME',
      dir,
      ...rlimits(limits),
    ],
    report: {
      isolated: true,
      filesystem: 'read-only except the test folder (TMPDIR points there; /tmp is read-only too)',
      network: 'none (own network namespace, host loopback unreachable)',
      memory: 'capped',
      processes: processNote,
      summary: `Isolated with bubblewrap: read-only filesystem except the test folder, no network, memory ${pidsCgroup || !isRoot ? 'and process ' : ''}limits, killed on timeout.`,
    },
  };
}

/** Kills what is left in the group, then removes it once the kernel reports it empty. */
async function releaseCgroup(group: string | null): Promise<void> {
  if (!group || !fs.existsSync(group)) return;
  const procs = () => {
    try {
      return fs.readFileSync(path.join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  for (const pid of procs()) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  // Killed processes leave the group a moment later; poll for that with a deadline.
  const deadline = Date.now() + 3000;
  for (;;) {
    try {
      fs.rmdirSync(group);
      return;
    } catch {
      if (Date.now() > deadline) return; // Left empty-ish for the kernel; it holds nothing for long.
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
