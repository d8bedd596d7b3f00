/**
 * Repetition control over the tokens a call generates: a CTRL-style penalty on recently generated
 * tokens and a ban on repeating an n-gram. Small models loop under greedy decoding (the same
 * `assert` line or paragraph until the token limit); the n-gram ban breaks an exact loop at its
 * first repeat, and the penalty (off by default) discourages near-repeats.
 */
import type { RepetitionOptions } from './types';

/**
 * The one default. A 12-token n-gram is longer than the phrases a proof or a test legitimately
 * repeats inside one answer ("by the induction hypothesis", `assert f(`), and shorter than one
 * looped line or sentence. The penalty is off: it also pushes down digits and operators that
 * arithmetic must repeat.
 */
export const DEFAULT_REPETITION: Required<RepetitionOptions> = {
  penalty: 1,
  penaltyWindow: 64,
  noRepeatNgram: 12,
};

export function repetitionSettings(options?: RepetitionOptions): Required<RepetitionOptions> {
  const merged = { ...DEFAULT_REPETITION, ...options };
  return {
    penalty: merged.penalty > 0 ? merged.penalty : 1,
    penaltyWindow: Math.max(0, Math.floor(merged.penaltyWindow)),
    noRepeatNgram: Math.max(0, Math.floor(merged.noRepeatNgram)),
  };
}

/**
 * The history of one generated sequence. `push` every token the model is conditioned on from the
 * start of the call (sampled or forced); `rewind` when the caller drops tokens it had pushed.
 */
export class RepetitionHistory {
  private readonly tokens: number[] = [];
  /** (n-1)-gram key -> the tokens that followed it. */
  private readonly followers = new Map<string, Set<number>>();

  constructor(readonly settings: Required<RepetitionOptions>) {}

  get active(): boolean {
    return this.settings.penalty !== 1 || this.settings.noRepeatNgram > 1;
  }

  push(token: number): void {
    this.tokens.push(token);
    const n = this.settings.noRepeatNgram;
    if (n > 1 && this.tokens.length >= n) {
      const key = this.tokens.slice(-n, -1).join(',');
      let set = this.followers.get(key);
      if (!set) this.followers.set(key, (set = new Set()));
      set.add(token);
    }
  }

  /** Drops the tokens after the first `length` (their n-grams go too). */
  rewind(length: number): void {
    while (this.tokens.length > length) {
      const n = this.settings.noRepeatNgram;
      if (n > 1 && this.tokens.length >= n) {
        const token = this.tokens[this.tokens.length - 1];
        const key = this.tokens.slice(-n, -1).join(',');
        // The same n-gram may occur twice; keep it if an earlier occurrence remains.
        if (!this.occursBefore(key, token, this.tokens.length - 1)) this.followers.get(key)?.delete(token);
      }
      this.tokens.pop();
    }
  }

  get length(): number {
    return this.tokens.length;
  }

  /** Tokens that would complete a repeated n-gram now. */
  banned(): ReadonlySet<number> | undefined {
    const n = this.settings.noRepeatNgram;
    if (n <= 1 || this.tokens.length < n - 1) return undefined;
    return this.followers.get(this.tokens.slice(-(n - 1)).join(','));
  }

  /**
   * The row with the penalty applied (a copy; the input is untouched) and the repeat-completing
   * tokens set to -Infinity, or the row itself when nothing applies.
   */
  apply(row: Float32Array): Float32Array {
    const banned = this.banned();
    const penalise = this.settings.penalty !== 1 && this.settings.penaltyWindow > 0;
    if (!penalise && (!banned || banned.size === 0)) return row;
    const out = Float32Array.from(row);
    if (penalise) {
      const seen = new Set(this.tokens.slice(-this.settings.penaltyWindow));
      for (const id of seen) {
        const v = out[id];
        out[id] = v > 0 ? v / this.settings.penalty : v * this.settings.penalty;
      }
    }
    if (banned) for (const id of banned) out[id] = -Infinity;
    return out;
  }

  private occursBefore(key: string, token: number, end: number): boolean {
    const n = this.settings.noRepeatNgram;
    for (let i = n - 1; i < end; i++) {
      if (this.tokens[i] === token && this.tokens.slice(i - n + 1, i).join(',') === key) return true;
    }
    return false;
  }
}
