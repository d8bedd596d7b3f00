/** One confined run: its folders, its confinement prefix, its process, and its clean-up. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeRunDir, removeRunDir } from './cleanup';
import { sandboxMemoryMb, type Confinement, type Limits, type RunDirs } from './isolation';
import { watchTreeMemory } from './memoryWatch';
import { startConfined, type ProcessEnd, type ProcessOptions } from './process';

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

/** The process's own options (limits, output cap, results channel, abort) pass through unchanged. */
export interface LaunchOptions extends Pick<
  ProcessOptions,
  'limitMs' | 'outputCapBytes' | 'channelCapBytes' | 'onChannelLine' | 'channelFd' | 'signal'
> {
  jail: Confinement;
  run: StagedRun;
  limits: Limits;
  /** The command, given the run's folders as the confined process sees them. */
  command: (paths: RunDirs) => string[];
  env?: (paths: RunDirs) => Record<string, string>;
  /** Host folders the interpreter needs, bound read-only. */
  readOnly: string[];
  /** Gives the caller the kill switch (a watchdog kills one call that runs too long). */
  onStart?: (kill: () => void) => void;
}

/** The seccomp filter as a descriptor for the child's fd 4, from a file in the run's own folder. */
function seccompFd(run: StagedRun, program: Buffer | null): number | undefined {
  if (!program) return undefined;
  const file = path.join(run.root, 'seccomp.bpf');
  fs.writeFileSync(file, program, { mode: 0o600 });
  return fs.openSync(file, 'r');
}

export async function launch(opts: LaunchOptions): Promise<ProcessEnd> {
  const paths = opts.jail.paths(opts.run);
  const prepared = opts.jail.prepare(opts.run, opts.limits, opts.readOnly);
  let fd4: number | undefined;
  let stopWatch = () => undefined as void;
  try {
    fd4 = seccompFd(opts.run, prepared.seccomp);
    const proc = startConfined([...prepared.prefix, ...opts.command(paths)], {
      cwd: opts.run.workDir,
      env: { TMPDIR: paths.workDir, HOME: paths.workDir, ...(opts.env?.(paths) ?? {}) },
      limitMs: opts.limitMs,
      outputCapBytes: opts.outputCapBytes,
      channelCapBytes: opts.channelCapBytes,
      onChannelLine: opts.onChannelLine,
      channelFd: opts.channelFd,
      signal: opts.signal,
      fd4,
    });
    // The child holds its own copy of the descriptor now.
    if (fd4 !== undefined) fs.closeSync(fd4);
    fd4 = undefined;
    if (prepared.superviseBytes !== null && proc.pid)
      stopWatch = watchTreeMemory(proc.pid, prepared.superviseBytes, (pids) => {
        proc.kill('memory');
        // Processes that left the group (setsid outside a sandbox) go too.
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
      });
    opts.onStart?.(() => proc.kill('watchdog'));
    const end = await proc.done;
    if (end.killedFor === 'memory' || prepared.memoryExceeded())
      end.output = `${end.output}\nThe sandbox went over its memory cap of ${sandboxMemoryMb(opts.limits)} MiB (all its processes together) and was stopped.`;
    return end;
  } finally {
    stopWatch();
    if (fd4 !== undefined) fs.closeSync(fd4);
    await prepared.release();
  }
}
