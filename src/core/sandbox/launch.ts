/** One confined run: its folders, its confinement prefix, its process, and its clean-up. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeRunDir, removeRunDir } from './cleanup';
import type { Confinement, Limits, RunDirs } from './isolation';
import { startConfined, type ProcessEnd } from './process';

export interface StagedRun extends RunDirs {
  root: string;
}

/** A run's host folders: `in` for the inputs (read-only inside), `work` for the no-tmpfs fallback. */
export function stageRun(files: Record<string, string>): StagedRun {
  const root = makeRunDir();
  const inDir = path.join(root, 'in');
  const workDir = path.join(root, 'work');
  fs.mkdirSync(inDir, { mode: 0o755 });
  fs.mkdirSync(workDir, { mode: 0o777 });
  // The confined uid reads the inputs as "other"; without bubblewrap it writes into work.
  fs.chmodSync(inDir, 0o755);
  fs.chmodSync(workDir, 0o777);
  for (const [name, content] of Object.entries(files)) {
    fs.writeFileSync(path.join(inDir, name), content, { mode: 0o644 });
  }
  return { root, inDir, workDir };
}

export function unstage(run: StagedRun): void {
  removeRunDir(run.root);
}

export interface LaunchOptions {
  jail: Confinement;
  run: StagedRun;
  limits: Limits;
  /** The command, given the run's folders as the confined process sees them. */
  command: (paths: RunDirs) => string[];
  env?: (paths: RunDirs) => Record<string, string>;
  /** Host folders the interpreter needs, bound read-only. */
  readOnly: string[];
  limitMs: number;
  outputCapBytes: number;
  channelCapBytes: number;
  onChannelLine?: (line: string) => void;
  channelFd?: 1 | 3;
  signal?: AbortSignal;
  /** Gives the caller the kill switch (a watchdog kills one call that runs too long). */
  onStart?: (kill: () => void) => void;
}

export async function launch(opts: LaunchOptions): Promise<ProcessEnd> {
  const paths = opts.jail.paths(opts.run);
  try {
    const prefix = opts.jail.prefix(opts.run, opts.limits, opts.readOnly);
    const proc = startConfined([...prefix, ...opts.command(paths)], {
      cwd: opts.run.workDir,
      env: { TMPDIR: paths.workDir, HOME: paths.workDir, ...(opts.env?.(paths) ?? {}) },
      limitMs: opts.limitMs,
      outputCapBytes: opts.outputCapBytes,
      channelCapBytes: opts.channelCapBytes,
      onChannelLine: opts.onChannelLine,
      channelFd: opts.channelFd,
      signal: opts.signal,
    });
    opts.onStart?.(() => proc.kill('watchdog'));
    return await proc.done;
  } finally {
    await opts.jail.release(opts.run);
  }
}
