/**
 * Runs a harness that works through a list of items (calls, expected values), one record per item
 * over the results channel, under the host's own clocks: a watchdog per item (a call that ignores
 * SIGALRM, or loops in C code, is killed from outside) and a deadline for the whole list. When the
 * process dies or is killed mid-list, the item in progress gets its verdict and a fresh process
 * goes on from the next one, so no single item can hide the others' results.
 */
import type { ProcessEnd } from '../process';

export type ItemFailure =
  | { kind: 'timeout'; detail: string }
  | { kind: 'crashed'; detail: string }
  | { kind: 'not-loaded'; detail: string }
  | { kind: 'not-run'; detail: string };

export interface ItemRecord {
  record: Record<string, unknown>;
  durationMs: number;
}

export interface ResumableResult {
  records: Map<number, ItemRecord>;
  failures: Map<number, ItemFailure>;
  output: string;
  /** Items not run because maxTimeouts was reached; absent when it was not. */
  cappedAfterTimeouts?: number;
}

export interface ResumableOptions {
  count: number;
  /** Starts the harness at item `start`; resolves when that process has ended. */
  launchAt(
    start: number,
    limitMs: number,
    onLine: (line: string) => void,
    onStart: (kill: () => void) => void,
  ): Promise<ProcessEnd>;
  perItemMs: number;
  deadline: number;
  signal?: AbortSignal;
  /**
   * Stop after this many items ran out of time (a record saying so, or the watchdog): the items
   * not yet run get a 'not-run' failure saying why. Code that loops on its input usually loops on
   * the next one too, and every such item costs the whole per-item limit. Absent: no cap.
   */
  maxTimeouts?: number;
}

/** Time an item may take past its own limit before the host kills the process: start-up, encoding. */
const GRACE_MS = 2000;

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export async function runResumable(opts: ResumableOptions): Promise<ResumableResult> {
  const records = new Map<number, ItemRecord>();
  const failures = new Map<number, ItemFailure>();
  const outputs: string[] = [];
  const settled = (i: number) => records.has(i) || failures.has(i);
  let start = 0;
  let timeouts = 0;
  const capReached = () => opts.maxTimeouts !== undefined && timeouts >= opts.maxTimeouts;
  let capped = 0;
  while (start < opts.count) {
    opts.signal?.throwIfAborted();
    const remainingMs = opts.deadline - Date.now();
    if (remainingMs <= 0) {
      for (let i = start; i < opts.count; i++)
        if (!settled(i)) failures.set(i, { kind: 'not-run', detail: 'Not run: the suite ran out of time.' });
      break;
    }
    let current = -1;
    let startedAt = 0;
    let loadError: string | undefined;
    let kill: () => void = () => undefined;
    let watchdog: NodeJS.Timeout | undefined;
    const onLine = (line: string) => {
      const rec = parse(line);
      if (!rec) return;
      if (typeof rec.load === 'string' && current === -1) loadError ??= rec.load.slice(0, 4000);
      // Only the next item may start, and only the item in progress may answer (first answer wins).
      if (
        typeof rec.s === 'number' &&
        // Once the cap is reached no further item starts: the process is being stopped.
        !capReached() &&
        rec.s > current &&
        rec.s < opts.count &&
        (current === -1 ? rec.s === start : settled(current))
      ) {
        current = rec.s;
        startedAt = Date.now();
        clearTimeout(watchdog);
        watchdog = setTimeout(() => kill(), opts.perItemMs + GRACE_MS);
      } else if (typeof rec.i === 'number' && rec.i === current && !settled(current) && rec.s === undefined) {
        clearTimeout(watchdog);
        records.set(current, { record: rec, durationMs: Date.now() - startedAt });
        if (rec.timeout === true) {
          timeouts++;
          // The rest of the list is not run: stop the process now rather than after its next item.
          if (capReached()) kill();
        }
      }
    };
    const end = await opts.launchAt(start, remainingMs, onLine, (k) => (kill = k));
    clearTimeout(watchdog);
    opts.signal?.throwIfAborted();
    if (end.output.trim()) outputs.push(end.output.trim());
    const ending =
      end.killedFor === 'watchdog' || end.killedFor === 'timeout'
        ? 'it ran past its time limit and was killed by the host'
        : end.killedFor === 'channel-overflow'
          ? 'it sent more results than the channel carries, and was stopped'
          : `the process ended during it (${end.signal ? `signal ${end.signal}` : `exit code ${end.code}`})`;
    if (current === -1 || loadError) {
      // Nothing ran: the code under test did not load (or ended the process while loading).
      const detail = loadError
        ? `The code under test could not be loaded:\n${loadError}`
        : `The code under test did not load: ${end.killedFor ? 'it ran past the time limit while loading' : ending}.\n${end.output.slice(-2000)}`;
      for (let i = start; i < opts.count; i++)
        if (!settled(i)) failures.set(i, { kind: 'not-loaded', detail });
      break;
    }
    if (!settled(current)) {
      const timedOut = end.killedFor === 'watchdog' || end.killedFor === 'timeout';
      if (timedOut) timeouts++;
      failures.set(current, {
        kind: timedOut ? 'timeout' : 'crashed',
        detail: `No result: ${ending}.${end.output ? `\n${end.output.slice(-2000)}` : ''}`,
      });
    }
    if (capReached()) {
      for (let i = 0; i < opts.count; i++)
        if (!settled(i)) {
          capped++;
          failures.set(i, {
            kind: 'not-run',
            detail: `Not run: this code had already run out of time on ${timeouts} calls, so the rest were not run.`,
          });
        }
      break;
    }
    let next = start;
    while (next < opts.count && settled(next)) next++;
    start = next;
  }
  return {
    records,
    failures,
    output: outputs.join('\n'),
    ...(capped ? { cappedAfterTimeouts: capped } : {}),
  };
}
