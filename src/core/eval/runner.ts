/**
 * Runs the items of an evaluation that its journal does not hold yet, `concurrency` at a time
 * (useful against an endpoint that batches requests; a local model serialises them anyway),
 * journaling each as it finishes and reporting progress with an ETA.
 */
import { performance } from 'node:perf_hooks';
import type { EvalJournal, JournalEntry } from './journal';

export interface EvalItem<I> {
  index: number;
  id: string;
  input: I;
}

export interface EvalProgress {
  /** Items finished, this run and earlier ones together. */
  done: number;
  total: number;
  /** Items that failed in this run (they are retried by the next run). */
  failed: number;
  elapsedMs: number;
  /** Mean wall time per item finished in this run. */
  msPerItem: number | null;
  etaMs: number | null;
  /** The item that just finished, and a one-line account of it. */
  last?: { id: string; summary: string; ok: boolean };
}

export interface RunItemsOptions<I, R> {
  items: EvalItem<I>[];
  journal: EvalJournal<R>;
  concurrency: number;
  signal?: AbortSignal;
  evaluate(item: EvalItem<I>, signal?: AbortSignal): Promise<R>;
  /** One line about a finished item for the progress display. */
  describe(result: R): string;
  onProgress?(progress: EvalProgress): void;
  /** After this many failures in a row the run stops (default 3): the model is likely unreachable. */
  stopAfterFailures?: number;
}

export interface RunItemsOutcome {
  cancelled: boolean;
  /** The error that stopped the run, when failures piled up. */
  stoppedBy: { message: string; hint?: string } | null;
  ranThisTime: number;
  elapsedMs: number;
}

export async function runItems<I, R>(options: RunItemsOptions<I, R>): Promise<RunItemsOutcome> {
  const { items, journal, signal } = options;
  const pending = items.filter((it) => !journal.finished.has(it.id));
  const started = performance.now();
  let finishedNow = 0;
  let failedNow = 0;
  let failuresInRow = 0;
  let stoppedBy: RunItemsOutcome['stoppedBy'] = null;
  const limit = options.stopAfterFailures ?? 3;
  const doneBefore = items.length - pending.length;

  const report = (last?: EvalProgress['last']) => {
    const elapsedMs = performance.now() - started;
    const handled = finishedNow + failedNow;
    const msPerItem = handled ? elapsedMs / handled : null;
    const remaining = pending.length - handled;
    options.onProgress?.({
      done: doneBefore + finishedNow,
      total: items.length,
      failed: failedNow,
      elapsedMs,
      msPerItem,
      etaMs: msPerItem === null ? null : remaining * msPerItem,
      last,
    });
  };
  report();

  let next = 0;
  const worker = async () => {
    while (next < pending.length && !signal?.aborted && !stoppedBy) {
      const item = pending[next++];
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const cpuMs = () => {
        const d = process.cpuUsage(cpu0);
        return (d.user + d.system) / 1000;
      };
      try {
        const result = await options.evaluate(item, signal);
        // A cancelled item is not finished: the next run evaluates it again.
        if (signal?.aborted) return;
        journal.append({
          index: item.index,
          id: item.id,
          result,
          ms: performance.now() - t0,
          cpuMs: cpuMs(),
        });
        finishedNow++;
        failuresInRow = 0;
        report({ id: item.id, summary: options.describe(result), ok: true });
      } catch (err) {
        if (signal?.aborted) return;
        const e = err as Error & { hint?: string };
        const error = { message: e?.message ?? String(err), ...(e?.hint ? { hint: e.hint } : {}) };
        journal.append({ index: item.index, id: item.id, error, ms: performance.now() - t0, cpuMs: cpuMs() });
        failedNow++;
        failuresInRow++;
        report({ id: item.id, summary: `failed: ${error.message}`, ok: false });
        if (failuresInRow >= limit) stoppedBy = error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return {
    cancelled: !!signal?.aborted,
    stoppedBy,
    ranThisTime: finishedNow + failedNow,
    elapsedMs: performance.now() - started,
  };
}

/** Results in dataset order, limited to the items of this run (a journal may hold more). */
export function resultsFor<I, R>(items: EvalItem<I>[], journal: EvalJournal<R>): JournalEntry<R>[] {
  return items.map((it) => journal.finished.get(it.id)).filter((e): e is JournalEntry<R> => !!e);
}

/** "1 h 05 min", "3 min 20 s", "12 s": a duration a person reads at a glance. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** The progress line the CLI writes to stderr. */
export function progressLine(p: EvalProgress): string {
  const pct = p.total ? Math.floor((100 * p.done) / p.total) : 100;
  const parts = [`[${p.done}/${p.total}] ${pct}%`];
  if (p.msPerItem !== null)
    parts.push(`${(p.msPerItem / 1000).toFixed(1)} s/item`, `ETA ${formatDuration(p.etaMs)}`);
  if (p.failed) parts.push(`${p.failed} failed`);
  if (p.last) parts.push(`${p.last.id}: ${p.last.summary}`);
  return parts.join(' · ');
}
