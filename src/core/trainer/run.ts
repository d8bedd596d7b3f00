import { TrainerEvent } from './events';

export interface TrainerRun {
  events: TrainerEvent[];
  exitCode: number | null;
  /** How the run ended, in words a person can act on. */
  outcome: 'done' | 'error' | 'cancelled' | 'crashed';
  message: string;
  lastCheckpoint?: string;
}

export interface TrainerRunOptions {
  python: string;
  job: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  signal?: AbortSignal;
  onEvent?: (event: TrainerEvent) => void;
  onLog?: (line: string) => void;
  /** Milliseconds between SIGINT and SIGKILL. The trainer saves a checkpoint at the end of the step
   *  it is in, which on a real model on a CPU can take tens of seconds; default one minute. */
  graceMs?: number;
}

/**
 * Runs one trainer job. stdout is the protocol: each line must parse as a TrainerEvent; a line
 * that does not is reported through onLog as a protocol error, never crashes the run. stderr is
 * the log. Cancelling sends SIGINT first so the trainer can stop cleanly, then SIGKILL.
 */
export async function runTrainer(o: TrainerRunOptions): Promise<TrainerRun> {
  const { execa } = await import('execa');
  const log = o.onLog ?? (() => undefined);
  log(`$ ${o.python} -m stepwise_trainer ${o.job} ${o.args.join(' ')}`);
  const child = execa(o.python, ['-u', '-m', 'stepwise_trainer', o.job, ...o.args], {
    cwd: o.cwd,
    env: { PYTHONUNBUFFERED: '1', ...o.env },
    reject: false,
    stdin: 'ignore',
    buffer: false,
  });
  const events: TrainerEvent[] = [];
  let lastCheckpoint: string | undefined;
  let cancelled = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    cancelled = true;
    child.kill('SIGINT');
    // The trainer gets a grace period to write a checkpoint; then it is killed.
    killTimer = setTimeout(() => child.kill('SIGKILL'), o.graceMs ?? 60_000);
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const lines = (stream: NodeJS.ReadableStream | null, each: (line: string) => void) => {
    let buffer = '';
    stream?.on('data', (d: Buffer) => {
      buffer += d.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      parts.filter((l) => l.trim()).forEach(each);
    });
    stream?.on('end', () => buffer.trim() && each(buffer));
  };
  lines(child.stdout, (line) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      log(`protocol error: the trainer printed a non-JSON line on stdout: ${line.slice(0, 200)}`);
      return;
    }
    const parsed = TrainerEvent.safeParse(value);
    if (!parsed.success) {
      log(`protocol error: ${line.slice(0, 200)} (${parsed.error.issues[0]?.message})`);
      return;
    }
    events.push(parsed.data);
    if (parsed.data.type === 'checkpoint') lastCheckpoint = parsed.data.path;
    o.onEvent?.(parsed.data);
  });
  lines(child.stderr, log);
  const result = await child;
  clearTimeout(killTimer);
  o.signal?.removeEventListener('abort', onAbort);
  const done = events.find((e) => e.type === 'done');
  const error = [...events].reverse().find((e) => e.type === 'error');
  const exitCode = result.exitCode ?? null;
  const resume = lastCheckpoint ? ` The last checkpoint is ${lastCheckpoint}; run again with --resume to continue.` : ' No checkpoint was written yet.';
  if (done && exitCode === 0) return { events, exitCode, outcome: 'done', message: `Training finished: ${done.output}`, lastCheckpoint };
  if (cancelled) return { events, exitCode, outcome: 'cancelled', message: `Training was cancelled.${resume}`, lastCheckpoint };
  if (error?.type === 'error') return { events, exitCode, outcome: 'error', message: `${error.message}${error.hint ? ` — ${error.hint}` : ''}`, lastCheckpoint };
  return {
    events,
    exitCode,
    outcome: 'crashed',
    message: `The trainer stopped unexpectedly (${result.signal ? `signal ${result.signal}` : `exit code ${exitCode}`}).${resume}`,
    lastCheckpoint,
  };
}
