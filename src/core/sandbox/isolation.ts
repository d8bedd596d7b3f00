import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sweepLeftovers } from './cleanup';
import { makeRunCgroups, probeCgroups } from './cgroups';
import { sandboxMemoryMb, SANDBOX_DEFAULTS, type Limits, type Probe } from './limits';
import { boundFromHost, mountArgs, SANDBOX_IN, SANDBOX_WORK } from './mounts';
import { isolationReport } from './report';
import { seccompProgram } from './seccomp';
import type { IsolationReport } from './types';

/** One run's folders on the host: read-only inputs, and a writable folder used when no tmpfs can be made. */
export interface RunDirs {
  inDir: string;
  workDir: string;
}

/** One run, prepared: its command prefix and what the caller must do around it. */
export interface PreparedRun {
  prefix: string[];
  /** The seccomp filter bubblewrap reads from fd 4 (null: none, no `--seccomp` in the prefix). */
  seccomp: Buffer | null;
  /** Set when no memory cgroup holds the run: the supervisor must watch its tree against this. */
  superviseBytes: number | null;
  /** Whether the kernel stopped a process for going over the memory cgroup's cap. */
  memoryExceeded(): boolean;
  release(): Promise<void>;
}

export interface Confinement {
  /** What this machine confines, and what the runs so far bound and capped. */
  readonly report: IsolationReport;
  /** The run's folders as the confined process sees them. */
  paths(run: RunDirs): RunDirs;
  prepare(run: RunDirs, limits: Limits, readOnly: string[]): PreparedRun;
}

let probed: Probe | undefined;
const SANDBOX_UID = '65534';
const BASE_FLAGS = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];

/** What this machine can do: bubblewrap with which user-namespace flags, cgroups, seccomp. */
function probe(): Probe {
  if (probed) return probed;
  const isRoot = process.getuid?.() === 0;
  const bwrapPath = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => fs.existsSync(p)) ?? null;
  let bwrap: string | null = null;
  let userFlags: string[] = [];
  if (bwrapPath && process.platform === 'linux') {
    const userns = ['--unshare-user', '--uid', SANDBOX_UID, '--gid', SANDBOX_UID];
    const candidates = [[...userns, '--disable-userns'], userns, ...(isRoot ? [[]] : [])];
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-probe-'));
    try {
      for (const flags of candidates) {
        const args = [...BASE_FLAGS, ...flags, ...mountArgs(scratch, 1, []), '--chdir', SANDBOX_WORK, 'true'];
        if (spawnSync(bwrapPath, args, { timeout: 10_000 }).status === 0) {
          bwrap = bwrapPath;
          userFlags = flags;
          break;
        }
      }
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }
  const linux = process.platform === 'linux';
  // Folders left by hosts that were killed before they could clean up (cgroups: probeCgroups).
  sweepLeftovers(null);
  probed = {
    bwrap,
    userFlags,
    cgroups: linux ? probeCgroups() : { pids: null, memory: null, v2: false },
    seccomp: bwrap ? seccompProgram() : null,
    canLimit: linux && fs.existsSync('/usr/bin/prlimit'),
    taskset: linux && fs.existsSync('/usr/bin/taskset') ? '/usr/bin/taskset' : null,
    isRoot,
  };
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

/** The cores this process may run on (Cpus_allowed_list), e.g. [0, 1]. */
function allowedCores(): number[] {
  try {
    const list = /Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
    const cores = list.split(',').flatMap((part) => {
      const [a, b] = part.split('-').map(Number);
      return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
    });
    return cores.filter((c) => Number.isInteger(c) && c >= 0);
  } catch {
    return [];
  }
}

/** Where the rotation starts: the pid, so concurrent hosts (the trainer runs many) spread too. */
let coreTurn = process.pid;

/**
 * How generated code is confined here. On Linux with bubblewrap: an empty root holding only the
 * system folders and what the interpreter needs, read-only (never the user's workspace: see
 * `interpreterPaths`); the run's inputs read-only; one writable folder, a tmpfs capped at
 * `diskMb`; no network; own PID, IPC and UTS namespaces; uid 65534 in its own user namespace
 * with no capabilities and no nested user namespaces; no /sys; a seccomp filter without the
 * kernel keyring (see seccomp.ts). Memory: a memory cgroup over the whole run where one can be
 * made, else a supervisor that samples the tree; Python also gets a per-process address-space
 * limit. Processes: a pids cgroup, else RLIMIT_NPROC (root ignores it). CPU: pinned to
 * `cpuCores` cores, rotating over the allowed ones so concurrent runs spread. The report says
 * what is missing and what the runs actually got.
 */
export function confinement(): Confinement {
  const machine = probe();
  const { bwrap, userFlags, cgroups, canLimit, isRoot } = machine;
  const seen = { readOnly: new Set<string>(), limits: undefined as Limits | undefined };
  const rlimits = (limits: Limits) =>
    canLimit
      ? [
          '/usr/bin/prlimit',
          ...(isRoot ? [] : [`--nproc=${ownProcessCount() + limits.processes}`]),
          `--fsize=${limits.fileMb * 1024 * 1024}`,
          ...(limits.memoryMb ? [`--as=${limits.memoryMb * 1024 * 1024}`] : []),
          '--',
        ]
      : [];
  const pin = (limits: Limits): string[] => {
    const cores = allowedCores();
    if (!machine.taskset || !cores.length) return [];
    const want = Math.min(cores.length, Math.max(1, limits.cpuCores ?? SANDBOX_DEFAULTS.cpuCores));
    if (want >= cores.length) return [];
    const start = coreTurn++ % cores.length;
    const chosen = Array.from({ length: want }, (_, i) => cores[(start + i) % cores.length]);
    return [machine.taskset, '-c', chosen.join(',')];
  };
  const prepare = (run: RunDirs, limits: Limits, readOnly: string[]): PreparedRun => {
    seen.limits = limits;
    for (const p of readOnly) seen.readOnly.add(p);
    const memoryBytes = sandboxMemoryMb(limits) * 1024 * 1024;
    const groups = makeRunCgroups(cgroups, { processes: limits.processes, memoryBytes });
    const confined = bwrap
      ? [
          bwrap,
          ...BASE_FLAGS,
          ...userFlags,
          ...(machine.seccomp ? ['--seccomp', '4'] : []),
          ...mountArgs(run.inDir, limits.diskMb, readOnly),
          '--chdir',
          SANDBOX_WORK,
          '--setenv',
          'TMPDIR',
          SANDBOX_WORK,
          '--setenv',
          'HOME',
          SANDBOX_WORK,
        ]
      : [];
    return {
      prefix: [...(groups?.enter ?? []), ...pin(limits), ...confined, ...rlimits(limits)],
      seccomp: bwrap ? machine.seccomp : null,
      // The supervisor reads /proc: Linux only (elsewhere the report says memory is not capped).
      superviseBytes: cgroups.memory || process.platform !== 'linux' ? null : memoryBytes,
      memoryExceeded: () => groups?.memoryExceeded() ?? false,
      release: async () => groups?.release(),
    };
  };
  return {
    paths: (run) => (bwrap ? { inDir: SANDBOX_IN, workDir: SANDBOX_WORK } : run),
    prepare,
    get report() {
      const bound = bwrap ? boundFromHost([...seen.readOnly]) : [];
      return isolationReport(machine, seen.limits, bound, allowedCores().length);
    },
  };
}

export { sandboxMemoryMb, type Limits, type Probe };
