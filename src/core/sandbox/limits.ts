/**
 * The sandbox's default limits, in one place: the runners fall back to them, the editor's settings
 * and the CLI take their defaults from them, so a test gets the same time and memory everywhere.
 */
import type { CgroupParents } from './cgroups';
import { DEFAULT_DISK_MB } from './types';

export const SANDBOX_DEFAULTS = {
  /** Milliseconds one test may run. */
  perTestTimeoutMs: 5000,
  /** Milliseconds the whole suite may run. */
  suiteTimeoutMs: 60_000,
  /** Memory of the whole sandbox, all its processes together, in MiB. */
  memoryMb: 512,
  /** CPU cores the code under test may use. */
  cpuCores: 1,
  /** Size of the one writable folder, in MiB. */
  diskMb: DEFAULT_DISK_MB,
} as const;

export interface Limits {
  /** Address-space cap of each process (Python); null for Node, whose V8 reserves far more. */
  memoryMb: number | null;
  /** Memory of the whole sandbox, all processes together (default memoryMb, else SANDBOX_DEFAULTS.memoryMb). */
  sandboxMemoryMb?: number;
  /** CPU cores the run is pinned to (default SANDBOX_DEFAULTS.cpuCores). */
  cpuCores?: number;
  processes: number;
  /** Largest single file, in MiB. */
  fileMb: number;
  /** Size of the writable folder, in MiB. */
  diskMb: number;
}

export interface Probe {
  bwrap: string | null;
  /** bubblewrap's user-namespace flags that work here ([] as root without user namespaces). */
  userFlags: string[];
  cgroups: CgroupParents;
  seccomp: Buffer | null;
  canLimit: boolean;
  taskset: string | null;
  isRoot: boolean;
}

/** The total memory cap of a run, in MiB. */
export function sandboxMemoryMb(limits: Limits): number {
  return limits.sandboxMemoryMb ?? limits.memoryMb ?? SANDBOX_DEFAULTS.memoryMb;
}
