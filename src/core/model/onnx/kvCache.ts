/**
 * The two KV caches a CausalLmSession may hold, behind one opaque type.
 *
 * - Copying (onnx-community graphs, e.g. the trainer's torch export): one tensor per layer and
 *   key/value, [batch, kvHeads, past, headDim]; every forward pass returns a new, longer copy.
 * - In place (graphs converted from GGUF): one buffer per layer and key/value, [batch, kvHeads,
 *   capacity, headDim], owned here. The graph reads it without copying and returns only the new
 *   positions' keys and values, which are written into the buffer at their columns; capacity grows
 *   in steps. Positions are the caller's padded columns; its mask says which are real.
 *
 * A cache passed to forward() or truncateCache() is used up: the buffers it names now hold the
 * new state. Using it again is a bug, reported as such.
 */
import * as ort from 'onnxruntime-node';
import { ModelError } from '../types';

export class CopyingKvCache {
  readonly kind = 'copying';
  constructor(readonly tensors: ort.Tensor[]) {}

  /** Positions held, pads included. */
  get length(): number {
    return this.tensors[0].dims[2];
  }
}

export class InPlaceKvCache {
  readonly kind = 'in-place';
  private usedUp = false;

  constructor(
    /** 2 × layers buffers [batch, kvHeads, capacity, headDim]; positions are the caller's columns. */
    readonly buffers: Float32Array[],
    readonly capacity: number,
    /** Per row, the caller's mask over every position fed so far (1 real, 0 padding). */
    readonly masks: number[][],
  ) {}

  get batch(): number {
    return this.masks.length;
  }

  /** Positions held in the caller's padded layout. */
  get length(): number {
    return this.masks[0].length;
  }

  /** Hands the buffers over to a successor state; this handle may not be used again. */
  takeBuffers(): Float32Array[] {
    if (this.usedUp) {
      throw new ModelError(
        'A KV cache was used after it was passed to forward() or truncateCache().',
        'internal',
        'Keep only the cache those calls return.',
      );
    }
    this.usedUp = true;
    return this.buffers;
  }
}

export type KvCache = CopyingKvCache | InPlaceKvCache;

/**
 * The capacity a cache of `capacity` positions grows to so that it holds `columns`: in whole steps
 * of `step`, by at least a step and a quarter of what it holds, so that decoding after a long
 * prompt reallocates the cache a few times rather than every `step` tokens. Each reallocation
 * leaves the old buffers (50 MB at 2,000 positions on the default model) as garbage until the next
 * collection, which raises the peak resident memory. `reserve` is the capacity the whole call will
 * need: a long prompt run in chunks then allocates its buffers once instead of once per chunk.
 */
export function grownCapacity(columns: number, capacity: number, step: number, reserve = 0): number {
  if (columns <= capacity) return capacity;
  const least = capacity + Math.max(step, Math.floor(capacity / 4));
  return Math.ceil(Math.max(columns, reserve, least) / step) * step;
}

/** Buffers for `batch` rows of `capacity` positions, holding the first `keep` positions of `from`. */
export function growBuffers(
  from: Float32Array[] | undefined,
  oldCapacity: number,
  keep: number,
  rows: number,
  headDim: number,
  capacity: number,
  count: number,
): Float32Array[] {
  return Array.from({ length: count }, (_, i) => {
    const data = new Float32Array(rows * capacity * headDim);
    const old = from?.[i];
    if (old) {
      for (let r = 0; r < rows; r++) {
        data.set(
          old.subarray(r * oldCapacity * headDim, (r * oldCapacity + keep) * headDim),
          r * capacity * headDim,
        );
      }
    }
    return data;
  });
}

/** The cache cut back to its first `length` positions (caller's padded layout). */
export function truncate(cache: KvCache, length: number): KvCache {
  const keep = Math.max(0, Math.min(length, cache.length));
  if (cache instanceof InPlaceKvCache) {
    // Nothing moves: the positions beyond are masked out and overwritten by later tokens.
    return new InPlaceKvCache(
      cache.takeBuffers(),
      cache.capacity,
      cache.masks.map((m) => m.slice(0, keep)),
    );
  }
  if (keep >= cache.length) return cache;
  const [batch, heads, past, dim] = cache.tensors[0].dims;
  return new CopyingKvCache(
    cache.tensors.map((tensor) => {
      const data = tensor.data as Float32Array;
      const out = new Float32Array(batch * heads * keep * dim);
      for (let row = 0; row < batch * heads; row++) {
        out.set(data.subarray(row * past * dim, (row * past + keep) * dim), row * keep * dim);
      }
      return new ort.Tensor('float32', out, [batch, heads, keep, dim]);
    }),
  );
}

/**
 * The cache with row `row`'s positions from column `from` on masked out: that row went back to an
 * earlier point while the others went on, so its later columns stay in place but are not read.
 */
export function maskRowFrom(cache: InPlaceKvCache, row: number, from: number): InPlaceKvCache {
  const masks = cache.masks.map((m, r) => (r === row ? m.map((v, c) => (c < from ? v : 0)) : m));
  return new InPlaceKvCache(cache.takeBuffers(), cache.capacity, masks);
}

/**
 * The cache with only the rows at `keep`, in that order, a row named twice copied twice: finished
 * rows stop costing a pass anything, and a prompt prefilled once becomes every sequence's start.
 */
export function keepRows(
  cache: InPlaceKvCache,
  keep: readonly number[],
  kvHeads: number,
  headDim: number,
): InPlaceKvCache {
  return selectRows(cache, cache.takeBuffers(), keep, kvHeads, headDim);
}

/** Like keepRows, but `cache` stays usable: the rows are copied out of it. */
export function copyRows(
  cache: InPlaceKvCache,
  keep: readonly number[],
  kvHeads: number,
  headDim: number,
): InPlaceKvCache {
  return selectRows(cache, cache.buffers, keep, kvHeads, headDim);
}

function selectRows(
  cache: InPlaceKvCache,
  from: Float32Array[],
  keep: readonly number[],
  kvHeads: number,
  headDim: number,
): InPlaceKvCache {
  const block = kvHeads * cache.capacity * headDim;
  const buffers = from.map((all) => {
    const some = new Float32Array(keep.length * block);
    keep.forEach((r, i) => some.set(all.subarray(r * block, (r + 1) * block), i * block));
    return some;
  });
  return new InPlaceKvCache(
    buffers,
    cache.capacity,
    keep.map((r) => [...cache.masks[r]]),
  );
}
