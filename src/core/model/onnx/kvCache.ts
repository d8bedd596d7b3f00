/**
 * The two KV caches a CausalLmSession may hold, behind one opaque type.
 *
 * - Copying (onnx-community graphs, e.g. the trainer's torch export): one tensor per layer and
 *   key/value, [batch, kvHeads, past, headDim]; every forward pass returns a new, longer copy.
 * - Shared buffer (graphs converted from GGUF, GroupQueryAttention): one buffer per layer and
 *   key/value of a fixed capacity, [batch, kvHeads, capacity, headDim], bound as both input and
 *   output so that onnxruntime appends in place. Rows hold their real tokens left-aligned, each
 *   with its own length; the caller's padded layout is remembered as masks so that it can keep
 *   speaking in padded positions.
 *
 * A cache passed to forward() or truncateCache() is used up: the shared buffers it names now hold
 * the new state. Using it again is a bug, reported as such.
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

export class SharedKvCache {
  readonly kind = 'shared';
  private usedUp = false;

  constructor(
    /** 2 × layers tensors [batch, kvHeads, capacity, headDim]. */
    readonly buffers: ort.Tensor[],
    /** Per row, the caller's mask over every position fed so far (1 real, 0 padding). */
    readonly masks: number[][],
  ) {}

  get batch(): number {
    return this.masks.length;
  }

  get capacity(): number {
    return this.buffers[0].dims[2];
  }

  /** Positions held in the caller's padded layout. */
  get length(): number {
    return this.masks[0].length;
  }

  /** Real tokens in row `b`, i.e. where its next token goes in the buffer. */
  rowLength(b: number): number {
    let n = 0;
    for (const m of this.masks[b]) n += m;
    return n;
  }

  /** Hands the buffers over to a successor state; this handle may not be used again. */
  takeBuffers(): ort.Tensor[] {
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

export type KvCache = CopyingKvCache | SharedKvCache;

/** Buffers for `batch` rows of at least `capacity` positions, holding `from`'s contents when given. */
export function sharedBuffers(
  layers: number,
  kvHeads: number,
  headDim: number,
  batch: number,
  capacity: number,
  from?: ort.Tensor[],
): ort.Tensor[] {
  return Array.from({ length: 2 * layers }, (_, i) => {
    const data = new Float32Array(batch * kvHeads * capacity * headDim);
    const old = from?.[i];
    if (old) {
      const oldCapacity = old.dims[2];
      const src = old.data as Float32Array;
      for (let row = 0; row < batch * kvHeads; row++) {
        data.set(
          src.subarray(row * oldCapacity * headDim, (row + 1) * oldCapacity * headDim),
          row * capacity * headDim,
        );
      }
    }
    return new ort.Tensor('float32', data, [batch, kvHeads, capacity, headDim]);
  });
}

/** The cache cut back to its first `length` positions (caller's padded layout). */
export function truncate(cache: KvCache, length: number): KvCache {
  const keep = Math.max(0, Math.min(length, cache.length));
  if (cache instanceof SharedKvCache) {
    // Nothing moves: the rows' lengths shrink and later tokens overwrite what lies beyond.
    return new SharedKvCache(
      cache.takeBuffers(),
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
