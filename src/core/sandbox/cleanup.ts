/**
 * Everything a sandbox run leaves on the host while it runs (folders, process groups, pids
 * cgroups), registered so that it is removed when the run ends, when the run is killed, and when
 * the CLI receives SIGINT/SIGTERM. What a killed host process (SIGKILL) left behind is swept by
 * the next run: names carry the owner's pid, and leftovers of dead owners are removed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface Leftovers {
  dirs: Set<string>;
  processGroups: Set<number>;
  cgroups: Set<string>;
}

const live: Leftovers = { dirs: new Set(), processGroups: new Set(), cgroups: new Set() };

export const STAGING_PREFIX = 'stepwise-sandbox-';

/** A fresh host folder for one run, named after this process so a later run can sweep it. */
export function makeRunDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${STAGING_PREFIX}${process.pid}-`));
  live.dirs.add(dir);
  return dir;
}

export function removeRunDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  live.dirs.delete(dir);
}

export function trackProcessGroup(pid: number): () => void {
  live.processGroups.add(pid);
  return () => live.processGroups.delete(pid);
}

export function trackCgroup(group: string): () => void {
  live.cgroups.add(group);
  return () => live.cgroups.delete(group);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Kills every process in a pids cgroup, then removes it; true once it is gone. */
export function releaseCgroupNow(group: string): boolean {
  let procs: string[] = [];
  try {
    procs = fs.readFileSync(path.join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  } catch {
    // No such group any more.
  }
  for (const pid of procs) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  try {
    fs.rmdirSync(group);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Synchronous release of everything still registered: for signal handlers and process exit,
 * where nothing asynchronous runs any more. Killed processes leave their cgroup a moment later,
 * so removal is retried against a short deadline (blocking the thread, which is exiting anyway).
 */
export function releaseAllSandboxes(): void {
  for (const pid of live.processGroups) killGroup(pid);
  live.processGroups.clear();
  const deadline = Date.now() + 2000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const group of live.cgroups) {
    while (!releaseCgroupNow(group) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 20);
  }
  live.cgroups.clear();
  for (const dir of live.dirs) fs.rmSync(dir, { recursive: true, force: true });
  live.dirs.clear();
}

function ownerAlive(name: string, prefix: string): boolean {
  const pid = Number(name.slice(prefix.length).split('-')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes folders and cgroups left by sandbox hosts that were killed before they could clean up. */
export function sweepLeftovers(cgroupRoot: string | null): void {
  const sweep = (dir: string, prefix: string, remove: (p: string) => void) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names)
      if (name.startsWith(prefix) && !ownerAlive(name, prefix)) remove(path.join(dir, name));
  };
  sweep(os.tmpdir(), STAGING_PREFIX, (p) => fs.rmSync(p, { recursive: true, force: true }));
  if (cgroupRoot) sweep(cgroupRoot, 'stepwise-', (p) => void releaseCgroupNow(p));
}
