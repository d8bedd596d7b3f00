import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { releaseCgroupNow, sweepLeftovers, trackCgroup } from './cleanup';
import { mountArgs, SANDBOX_IN, SANDBOX_WORK } from './mounts';
import type { IsolationReport } from './types';

export interface Limits {
  memoryMb: number | null;
  processes: number;
  /** Largest single file, in MiB. */
  fileMb: number;
  /** Size of the writable folder, in MiB. */
  diskMb: number;
}

/** One run's folders on the host: read-only inputs, and a writable folder used when no tmpfs can be made. */
export interface RunDirs {
  inDir: string;
  workDir: string;
}

export interface Confinement {
  report: IsolationReport;
  /** The run's folders as the confined process sees them. */
  paths(run: RunDirs): RunDirs;
  /** Prefix that runs a command confined; it may create a pids cgroup, released by `release`. */
  prefix(run: RunDirs, limits: Limits, readOnly: string[]): string[];
  release(run: RunDirs): Promise<void>;
}

interface Probe {
  bwrap: string | null;
  /** bubblewrap's user-namespace flags that work here ([] as root without user namespaces). */
  userFlags: string[];
  pidsCgroup: string | null;
}

let probed: Probe | undefined;
const PIDS_ROOT = '/sys/fs/cgroup/pids';
const SANDBOX_UID = '65534';
const BASE_FLAGS = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];

/** What this machine can do: bubblewrap with which user-namespace flags, and a pids cgroup (root). */
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
  let pidsCgroup: string | null = null;
  if (isRoot && fs.existsSync(PIDS_ROOT)) {
    const probeDir = path.join(PIDS_ROOT, `stepwise-probe-${process.pid}`);
    try {
      fs.mkdirSync(probeDir);
      fs.rmdirSync(probeDir);
      pidsCgroup = PIDS_ROOT;
    } catch {
      pidsCgroup = null;
    }
  }
  sweepLeftovers(pidsCgroup);
  probed = { bwrap, userFlags, pidsCgroup };
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

let cgroupCounter = 0;

/**
 * How generated code is confined here. On Linux with bubblewrap: an empty root holding only the
 * system folders and the interpreter, read-only (home, /tmp, /run, /dev/shm and the host's Unix
 * sockets are not there); the run's inputs read-only; one writable folder, a tmpfs capped at
 * `diskMb`; no network (own network namespace); own PID, IPC and UTS namespaces; uid 65534 in its
 * own user namespace with no capabilities and no nested user namespaces; no /sys, so no cgroup
 * file to write. Memory and file size are capped with rlimits. Process count: root ignores
 * RLIMIT_NPROC, so as root a pids cgroup (entered on the host, before bubblewrap) caps it;
 * otherwise RLIMIT_NPROC above the user's current count. The report says what is missing.
 */
export function confinement(): Confinement {
  const { bwrap, userFlags, pidsCgroup } = probe();
  const isRoot = process.getuid?.() === 0;
  const canLimit = process.platform === 'linux' && fs.existsSync('/usr/bin/prlimit');
  const groups = new Map<string, string>();
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
  const enterCgroup = (run: RunDirs, limits: Limits): string[] => {
    if (!pidsCgroup) return [];
    const group = path.join(pidsCgroup, `stepwise-${process.pid}-${++cgroupCounter}`);
    fs.mkdirSync(group, { recursive: true });
    fs.writeFileSync(path.join(group, 'pids.max'), String(limits.processes));
    groups.set(run.inDir, group);
    trackCgroup(group);
    return ['/bin/sh', '-c', `echo $$ > ${group}/cgroup.procs && exec "$@"`, 'stepwise-sandbox'];
  };
  const release = async (run: RunDirs) => {
    const group = groups.get(run.inDir);
    if (!group) return;
    groups.delete(run.inDir);
    // Killed processes leave the group a moment later; poll for that with a deadline.
    const deadline = Date.now() + 3000;
    while (!releaseCgroupNow(group) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    trackCgroup(group)();
  };
  const processNote = pidsCgroup
    ? 'capped (pids cgroup, entered before the sandbox starts; /sys is not mounted inside)'
    : isRoot
      ? 'NOT capped (root without a pids cgroup); timeouts still apply'
      : 'capped (process-count limit)';
  const memory = canLimit ? 'capped (address-space limit)' : 'not capped on this platform';
  if (!bwrap) {
    return {
      paths: (run) => run,
      prefix: (run, limits) => [...enterCgroup(run, limits), ...rlimits(limits)],
      release,
      report: {
        isolated: false,
        filesystem: 'NOT isolated: generated code can read and write wherever you can.',
        network: 'NOT isolated: generated code can reach the network.',
        memory,
        processes: canLimit ? processNote : 'not capped on this platform',
        user: 'NOT isolated: runs as you, with your privileges.',
        disk: canLimit ? 'NOT capped in total; single files are capped' : 'not capped on this platform',
        missing: ['bubblewrap (bwrap) with namespaces'],
        summary: `Not isolated on ${os.platform()}: bubblewrap is unavailable, so tests run with timeouts${canLimit ? ' and resource limits' : ''} only. Run them only on code you trust.`,
      },
    };
  }
  const userns = userFlags.length > 0;
  const missing = [
    ...(userns ? [] : ['user namespace (runs as root with no capabilities instead)']),
    ...(userns && !userFlags.includes('--disable-userns')
      ? ['--disable-userns (nested user namespaces allowed)']
      : []),
    ...(isRoot && !pidsCgroup ? ['pids cgroup'] : []),
  ];
  return {
    paths: () => ({ inDir: SANDBOX_IN, workDir: SANDBOX_WORK }),
    release,
    prefix: (run, limits, readOnly) => [
      ...enterCgroup(run, limits),
      bwrap,
      ...BASE_FLAGS,
      ...userFlags,
      ...mountArgs(run.inDir, limits.diskMb, readOnly),
      '--chdir',
      SANDBOX_WORK,
      '--setenv',
      'TMPDIR',
      SANDBOX_WORK,
      '--setenv',
      'HOME',
      SANDBOX_WORK,
      ...rlimits(limits),
    ],
    report: {
      isolated: true,
      filesystem:
        'private root: system folders and the interpreter read-only; home folders, /tmp, /run, /dev/shm and host sockets hidden; owner-only files in /etc masked; writable only a private capped folder',
      network: 'none (own network namespace, host loopback and abstract sockets unreachable)',
      memory,
      processes: processNote,
      user: userns
        ? `uid ${SANDBOX_UID} in its own user namespace, no capabilities${userFlags.includes('--disable-userns') ? ', no nested user namespaces' : ''}`
        : 'root with every capability dropped (user namespaces are unavailable)',
      disk: 'capped (private tmpfs of the run; gone when the run ends)',
      missing,
      summary: `Isolated with bubblewrap: private read-only root without home, /tmp or host sockets, no network, ${userns ? 'unprivileged uid' : 'no capabilities'}, capped writable folder, memory ${pidsCgroup || !isRoot ? 'and process ' : ''}limits, killed on timeout.${missing.length ? ` Missing: ${missing.join('; ')}.` : ''}`,
    },
  };
}
