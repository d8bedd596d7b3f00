/**
 * Control groups for one sandbox run: a pids group (process count) and a memory group (all the
 * run's processes together, page cache and tmpfs writes included). Each is made inside the
 * group this process already lives in, so the caller's own limits still hold over it, and the
 * run's first process enters them on the host before bubblewrap starts (no cgroup file is
 * reachable inside). Works with cgroup v1 (as root) and cgroup v2 wherever this user may make
 * child groups (root, or a delegated subtree). Where neither works, the caller falls back to
 * rlimits and the memory supervisor (memoryWatch.ts), and the isolation report says so.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { releaseCgroupNow, sweepLeftovers, trackCgroup } from './cleanup';

export interface CgroupParents {
  /** Folder in which pids groups are made (v1 pids hierarchy, or the v2 group). */
  pids: string | null;
  memory: string | null;
  v2: boolean;
}

const ROOT = '/sys/fs/cgroup';

/** This process's group in each hierarchy, from /proc/self/cgroup ("" key: the v2 group). */
function ownGroups(): Map<string, string> {
  const groups = new Map<string, string>();
  try {
    for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const m = /^\d+:([^:]*):(.*)$/.exec(line);
      if (m) for (const c of m[1].split(',')) groups.set(c, m[2]);
    }
  } catch {
    // No cgroups here (not Linux).
  }
  return groups;
}

/** Whether a child group can be made in `parent` and has `file` (its controller is on there). */
function canMake(parent: string, file: string): boolean {
  const probe = path.join(parent, `stepwise-probe-${process.pid}`);
  try {
    fs.mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    return fs.existsSync(path.join(probe, file));
  } finally {
    try {
      fs.rmdirSync(probe);
    } catch {
      // Removed by the sweep of a later run.
    }
  }
}

let probed: CgroupParents | undefined;

export function probeCgroups(): CgroupParents {
  if (probed) return probed;
  const own = ownGroups();
  let pids: string | null = null;
  let memory: string | null = null;
  let v2 = false;
  if (fs.existsSync(path.join(ROOT, 'cgroup.controllers')) && own.has('')) {
    // cgroup v2: one tree; a child gets a controller only when its parent enables it.
    const parent = path.join(ROOT, own.get('') ?? '/');
    try {
      fs.writeFileSync(path.join(parent, 'cgroup.subtree_control'), '+memory +pids');
    } catch {
      // Already on, or not ours to change (a group with processes of its own cannot).
    }
    if (canMake(parent, 'memory.max')) memory = parent;
    if (canMake(parent, 'pids.max')) pids = parent;
    v2 = true;
  } else {
    for (const [controller, file] of [
      ['pids', 'pids.max'],
      ['memory', 'memory.limit_in_bytes'],
    ] as const) {
      const parent = path.join(ROOT, controller, own.get(controller) ?? '/');
      if (!canMake(parent, file)) continue;
      if (controller === 'pids') pids = parent;
      else memory = parent;
    }
  }
  for (const parent of new Set([pids, memory])) if (parent) sweepLeftovers(parent);
  probed = { pids, memory, v2 };
  return probed;
}

export interface RunCgroups {
  /** Command prefix that moves the run's first process into the groups, then runs the rest. */
  enter: string[];
  /** Whether the kernel killed a process of the run for going over the memory cap. */
  memoryExceeded(): boolean;
  /** Kills what is left in the groups and removes them (polls with a deadline). */
  release(): Promise<void>;
}

let counter = 0;

function write(dir: string, file: string, value: string, optional = false): void {
  try {
    fs.writeFileSync(path.join(dir, file), value);
  } catch (err) {
    if (!optional) throw err;
  }
}

/** Makes the run's groups; null when this machine has none to make. */
export function makeRunCgroups(
  parents: CgroupParents,
  limits: { processes: number; memoryBytes: number | null },
): RunCgroups | null {
  const name = `stepwise-${process.pid}-${++counter}`;
  const dirs: string[] = [];
  const make = (parent: string) => {
    const dir = path.join(parent, name);
    if (!dirs.includes(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      trackCgroup(dir);
      dirs.push(dir);
    }
    return dir;
  };
  let memoryDir: string | null = null;
  if (parents.pids) write(make(parents.pids), 'pids.max', String(limits.processes));
  if (parents.memory && limits.memoryBytes) {
    memoryDir = make(parents.memory);
    if (parents.v2) {
      write(memoryDir, 'memory.max', String(limits.memoryBytes));
      write(memoryDir, 'memory.swap.max', '0', true);
    } else {
      write(memoryDir, 'memory.limit_in_bytes', String(limits.memoryBytes));
      // With swap accounting on, swap counts too (otherwise the file is absent).
      write(memoryDir, 'memory.memsw.limit_in_bytes', String(limits.memoryBytes), true);
    }
  }
  if (!dirs.length) return null;
  const script =
    'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; n=$((n-1)); done; exec "$@"';
  return {
    enter: ['/bin/sh', '-c', script, 'stepwise-sandbox', String(dirs.length), ...dirs],
    memoryExceeded: () => {
      if (!memoryDir) return false;
      try {
        const text = fs.readFileSync(
          path.join(memoryDir, parents.v2 ? 'memory.events' : 'memory.oom_control'),
          'utf8',
        );
        return Number(/oom_kill (\d+)/.exec(text)?.[1] ?? 0) > 0;
      } catch {
        return false;
      }
    },
    release: async () => {
      // Killed processes leave their group a moment later; poll for that with a deadline.
      for (const dir of dirs) {
        const deadline = Date.now() + 3000;
        while (!releaseCgroupNow(dir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        trackCgroup(dir)();
      }
    },
  };
}
