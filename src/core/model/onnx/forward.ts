/** One forward pass of a causal LM, as each graph convention (copying or in-place cache) implements it. */
import type { KvCache } from './kvCache';

export interface ForwardInput {
  /** Row-major [batch, seq] token ids (pads included). */
  ids: number[];
  batch: number;
  seq: number;
  /** Row-major [batch, past + seq]: 1 for real tokens, 0 for left padding. */
  mask: number[];
  /** Row-major [batch, seq]. */
  positions: number[];
  /** Cache from the previous call (used up by this one); undefined for the first. */
  past: KvCache | undefined;
  /** Logits for every position of `seq` (scoring); otherwise at least the last one of each row. */
  allLogits?: boolean;
  /**
   * In-place-cache graphs only: per row, the positions of `seq` whose logits are wanted, the same
   * count for every row (rows of a batched plan end at different positions). Overrides `allLogits`.
   */
  logitPositions?: number[][];
}

export interface ForwardOutput {
  /** [batch, rows, vocab]: row r of sequence b is position seq − rows + r of the input. */
  logits: Float32Array;
  vocab: number;
  /** Logit rows per sequence: `seq` with allLogits (and always for copying-cache graphs), else 1. */
  rows: number;
  present: KvCache;
}

/** What one graph convention implements. */
export interface GraphRunner {
  forward(input: ForwardInput): Promise<ForwardOutput>;
  /** Frees what the runner holds besides the session. */
  release?(): void;
}
