/**
 * The keys and values of the engine's last sequence, kept for the next request. Stepwise's flows
 * send requests that extend one another (the tests flow's stages are one conversation, each step
 * judged by the step scorer follows the steps before it), so the next prompt often begins with
 * most of the last sequence; only the tokens after the shared prefix are run through the model, as a server's
 * prompt cache does.
 *
 * n samples of one prompt (probes of a step, Prove's candidates) likewise run the prompt once and
 * copy its cache to every row (engine.ts, planRunner.ts).
 *
 * One sequence is held, of batch 1 with no padding, together with the token ids of its columns.
 * Taking it hands the cache over (a forward pass uses it up), so a request that fails midway
 * leaves nothing behind that could be stale.
 */
import type { CausalLmSession, ForwardOutput, KvCache } from './causalLmSession';

export interface HeldSequence {
  /** The token in each cache column, in order. */
  ids: number[];
  cache: KvCache;
}

export interface Prefill extends ForwardOutput {
  /** Prompt tokens whose keys and values came from the held sequence instead of a forward pass. */
  reused: number;
}

export class PrefixCache {
  private held: HeldSequence | undefined;

  /** false: nothing is kept, and each of n rows runs the prompt itself (the reference benchmarks compare). */
  constructor(readonly enabled = true) {}

  /** Keeps `ids` and the cache holding them (at least their count of columns) for the next request. */
  keep(ids: readonly number[], cache: KvCache): void {
    if (!this.enabled || cache.length < ids.length) return;
    this.held = { ids: [...ids], cache };
  }

  /** Forgets the held sequence (a new model, a disposed engine). */
  clear(): void {
    this.held = undefined;
  }

  /**
   * Runs `prompt` through the session after whatever prefix of it the held sequence already holds;
   * the logits are the last prompt token's. At least that token is always run, so its logits are
   * fresh. The held sequence is taken either way.
   */
  async prefill(session: CausalLmSession, prompt: number[]): Promise<Prefill> {
    const held = this.held;
    this.held = undefined;
    const shared = held ? Math.min(commonPrefix(held.ids, prompt), prompt.length - 1) : 0;
    const past = held && shared > 0 ? session.truncateCache(held.cache, shared) : undefined;
    const fresh = prompt.slice(past ? shared : 0);
    const out = await session.forward({
      ids: fresh,
      batch: 1,
      seq: fresh.length,
      mask: prompt.map(() => 1),
      positions: fresh.map((_, i) => prompt.length - fresh.length + i),
      past,
    });
    return { ...out, reused: past ? shared : 0 };
  }
}

/** How many leading tokens the two sequences share. */
export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
