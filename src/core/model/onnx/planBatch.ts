/**
 * The rows of one plan decoded together. On a CPU one forward pass for four rows costs about as
 * much as two passes for one (the weights are read once per pass), so n candidates are written in
 * lock step instead of one after another: each row runs its plan as its own task, and whenever
 * every unfinished row waits for logits, one batched pass feeds all of their pending tokens.
 *
 * Rows drift apart (forced text, stop strings cut back, choices scored option by option), so the
 * shared cache's columns do not line up with a row's positions: each row keeps the list of columns
 * its tokens sit in, its positions count only its own tokens, and a column that holds another row's
 * token, padding, or a token this row took back is masked out of its attention.
 */
import { ModelError } from '../types';
import type { CausalLmSession } from './causalLmSession';
import { InPlaceKvCache, keepRows, maskRowFrom } from './kvCache';
import type { CacheLane } from './planCursor';

interface Waiting {
  ids: number[];
  allRows: boolean;
  resolve(rows: Float32Array[]): void;
  reject(error: unknown): void;
}

export class BatchedLanes {
  /** Per row, the cache column of each of its tokens, in order. */
  private readonly columns: number[][];
  private readonly waiting = new Map<number, Waiting>();
  private readonly live: Set<number>;
  /** The row held in each of the cache's batch slots; finished rows are dropped before the next pass. */
  private slots: number[];
  private stepping = false;

  constructor(
    private readonly session: CausalLmSession,
    private cache: InPlaceKvCache,
    private readonly shape: { kvHeads: number; headDim: number },
    private readonly padId: number,
    private readonly isAborted: () => boolean,
  ) {
    const prompt = Array.from({ length: cache.length }, (_, c) => c);
    this.columns = cache.masks.map(() => [...prompt]);
    this.live = new Set(cache.masks.map((_, r) => r));
    this.slots = cache.masks.map((_, r) => r);
  }

  lane(row: number): CacheLane {
    return {
      forward: (ids, fed, allRows) => this.request(row, ids, fed, allRows),
      truncate: (length) => this.truncate(row, length),
      // A guess would make every row's pass one token longer; rows gain more from the batch.
      lookahead: false,
    };
  }

  /** The row's plan is over (done or failed): the others no longer wait for it. */
  finish(row: number): void {
    this.live.delete(row);
    this.waiting.get(row)?.reject(new ModelError('The row finished while it waited.', 'internal'));
    this.waiting.delete(row);
    this.maybeStep();
  }

  private request(row: number, ids: number[], fed: number, allRows: boolean): Promise<Float32Array[]> {
    if (fed !== this.columns[row].length)
      return Promise.reject(
        new ModelError(`Row ${row} holds ${this.columns[row].length} tokens, not ${fed}.`, 'internal'),
      );
    return new Promise((resolve, reject) => {
      this.waiting.set(row, { ids, allRows, resolve, reject });
      this.maybeStep();
    });
  }

  private truncate(row: number, length: number): void {
    const kept = this.columns[row];
    if (length >= kept.length) return;
    const from = kept[length];
    kept.length = length;
    this.cache = maskRowFrom(this.cache, this.slots.indexOf(row), from);
  }

  private maybeStep(): void {
    if (this.stepping || this.waiting.size === 0) return;
    for (const row of this.live) if (!this.waiting.has(row)) return;
    this.stepping = true;
    const batch = new Map(this.waiting);
    this.waiting.clear();
    this.step(batch)
      .catch((error: unknown) => {
        for (const w of batch.values()) w.reject(error);
      })
      .finally(() => {
        this.stepping = false;
        this.maybeStep();
      });
  }

  private async step(batch: Map<number, Waiting>): Promise<void> {
    if (this.isAborted()) throw new ModelError('The generation was cancelled.', 'aborted');
    if (this.slots.some((row) => !this.live.has(row))) {
      const keep = this.slots.flatMap((row, slot) => (this.live.has(row) ? [slot] : []));
      this.cache = keepRows(this.cache, keep, this.shape.kvHeads, this.shape.headDim);
      this.slots = keep.map((slot) => this.slots[slot]);
    }
    const past = this.cache.length;
    const seq = Math.max(...[...batch.values()].map((w) => w.ids.length));
    const ids: number[] = [];
    const positions: number[] = [];
    const mask: number[] = [];
    this.slots.forEach((row, slot) => {
      const fed = batch.get(row)?.ids ?? [];
      const own = this.columns[row].length;
      for (let j = 0; j < seq; j++) {
        ids.push(j < fed.length ? fed[j] : this.padId);
        positions.push(own + j);
      }
      // The stored masks already say which past columns this row reads; only the new ones are given.
      mask.push(
        ...this.cache.masks[slot],
        ...Array.from({ length: seq }, (_, j) => (j < fed.length ? 1 : 0)),
      );
    });
    // Each row's logits where it wants them: after its last token, or after each for scoring.
    const wanted = this.slots.map((row) => {
      const w = batch.get(row);
      if (!w) return [0];
      return w.allRows ? w.ids.map((_, j) => j) : [w.ids.length - 1];
    });
    const count = Math.max(...wanted.map((w) => w.length));
    const logitPositions = wanted.map((w) => [
      ...w,
      ...new Array<number>(count - w.length).fill(w[w.length - 1]),
    ]);
    const out = await this.session.forward({
      ids,
      batch: this.slots.length,
      seq,
      mask,
      positions,
      past: this.cache,
      logitPositions,
    });
    if (!(out.present instanceof InPlaceKvCache))
      throw new ModelError('Batched plans need a graph with an in-place cache.', 'internal');
    this.cache = out.present;
    const at = (slot: number, k: number) => {
      const start = (slot * out.rows + k) * out.vocab;
      return out.logits.slice(start, start + out.vocab);
    };
    this.slots.forEach((row, slot) => {
      const w = batch.get(row);
      if (!w) return;
      for (let j = 0; j < w.ids.length; j++) this.columns[row].push(past + j);
      w.resolve(wanted[slot].map((_, k) => at(slot, k)));
    });
  }
}
