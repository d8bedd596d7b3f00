/**
 * A long forward pass of an in-place-cache graph run as consecutive chunks of positions, each chunk
 * reading the keys and values the chunks before it left in the cache. Why: attention over a whole
 * call holds a score for every (query, key) pair of every head at once, 14 heads × 2,000 × 2,000
 * floats (224 MB) per layer for a 2,000-token prompt on the default model, and onnxruntime keeps
 * more than one such buffer alive; in chunks the scores of one layer are a chunk's rows, whatever
 * the prompt's length. Measured on the default model's fast graph, a 2,000-token prompt (peak
 * resident memory of the process, model load included): 1,380 MiB in one pass; 1,017, 960 and 927
 * MiB in chunks of 512, 256 and 128, with no slower first token. llama.cpp splits its prompt the
 * same way (its micro-batch, 512 tokens).
 *
 * The logits asked for come back in the caller's layout, as from one pass: row r of sequence b is
 * the r-th wanted position of b, wherever its chunk.
 */
import { ModelError } from '../types';

/**
 * The fields of a forward call (ForwardInput in causalLmSession.ts) that chunking reads and
 * writes; spelled out here so that this file does not import the session that uses it.
 */
export interface ForwardCall<Cache> {
  ids: number[];
  batch: number;
  seq: number;
  mask: number[];
  positions: number[];
  past: Cache | undefined;
  allLogits?: boolean;
  logitPositions?: number[][];
}

/** The fields of a forward call's result (ForwardOutput in causalLmSession.ts). */
export interface ForwardResult<Cache> {
  logits: Float32Array;
  vocab: number;
  rows: number;
  present: Cache;
}

/** Positions per pass when a call holds more: the smallest peak of those measured (see above). */
export const PREFILL_CHUNK = 128;

/**
 * Per row, the positions of this call whose logits are wanted: the caller's list, every position
 * (allLogits), or the last one. Throws when the caller's list does not fit the call.
 */
export function wantedPositions(input: ForwardCall<unknown>): number[][] {
  const { batch, seq } = input;
  const wanted = input.logitPositions;
  if (!wanted) {
    const row = input.allLogits ? Array.from({ length: seq }, (_, i) => i) : [seq - 1];
    return Array.from({ length: batch }, () => row);
  }
  const rows = wanted[0]?.length ?? 0;
  if (
    wanted.length !== batch ||
    rows === 0 ||
    wanted.some((w) => w.length !== rows || w.some((p) => !Number.isInteger(p) || p < 0 || p >= seq))
  )
    throw new ModelError(
      'forward() was given logit positions of the wrong shape.',
      'internal',
      'Give every row the same number of positions, each within this call.',
    );
  return wanted;
}

/**
 * Runs `input` through `once` in chunks of at most `chunk` positions (all rows cut at the same
 * columns), and gathers the wanted logits. `once` must take a chunk's output cache as the next
 * chunk's past, as an in-place-cache graph does.
 */
export async function forwardInChunks<Cache>(
  input: ForwardCall<Cache>,
  chunk: number,
  once: (input: ForwardCall<Cache>) => Promise<ForwardResult<Cache>>,
): Promise<ForwardResult<Cache>> {
  const { batch, seq } = input;
  const wanted = wantedPositions(input);
  const rowsOut = wanted[0].length;
  const pastColumns = input.mask.length / batch - seq;
  const columns = pastColumns + seq;
  let past = input.past;
  let logits: Float32Array | undefined;
  let vocab = 0;
  for (let start = 0; start < seq; start += chunk) {
    const end = Math.min(seq, start + chunk);
    const length = end - start;
    // Every row asks the chunk for as many positions as the row wanting most there: rows with
    // fewer repeat the chunk's last position, whose logits are then dropped.
    const inChunk = wanted.map((w) => w.flatMap((p, r) => (p >= start && p < end ? [{ p, r }] : [])));
    const count = Math.max(1, ...inChunk.map((c) => c.length));
    const logitPositions = inChunk.map((c) =>
      Array.from({ length: count }, (_, k) => (k < c.length ? c[k].p - start : length - 1)),
    );
    const rowsOf = <T>(all: T[], width: number, from: number, to: number) =>
      Array.from({ length: batch }, (_, b) => all.slice(b * width + from, b * width + to)).flat();
    const out = await once({
      ids: rowsOf(input.ids, seq, start, end),
      batch,
      seq: length,
      mask: rowsOf(input.mask, columns, 0, pastColumns + end),
      positions: rowsOf(input.positions, seq, start, end),
      past,
      logitPositions,
    });
    past = out.present;
    vocab = out.vocab;
    logits ??= new Float32Array(batch * rowsOut * vocab);
    inChunk.forEach((c, b) =>
      c.forEach(({ r }, k) => {
        const from = (b * count + k) * vocab;
        logits!.set(out.logits.subarray(from, from + vocab), (b * rowsOut + r) * vocab);
      }),
    );
  }
  return { logits: logits!, vocab, rows: rowsOut, present: past! };
}
