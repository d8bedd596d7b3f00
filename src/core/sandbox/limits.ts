/**
 * The sandbox's default limits, in one place: the runners fall back to them, the editor's settings
 * and the CLI take their defaults from them, so a test gets the same time and memory everywhere.
 */
import { DEFAULT_DISK_MB } from './types';

export const SANDBOX_DEFAULTS = {
  /** Milliseconds one test may run. */
  perTestTimeoutMs: 5000,
  /** Milliseconds the whole suite may run. */
  suiteTimeoutMs: 60_000,
  /** Memory cap of a sandboxed process, in MiB. */
  memoryMb: 512,
  /** Size of the one writable folder, in MiB. */
  diskMb: DEFAULT_DISK_MB,
} as const;
