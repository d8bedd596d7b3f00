/**
 * One sequence being decoded under a plan: its tokens, its KV cache, the logits for its next
 * token, and the text waiting to be fed. Forced text is fed lazily, in one forward pass with
 * whatever else is pending, so consecutive forced pieces are tokenised together as a model would
 * have written them. Rewinding cuts the cache back to an earlier token (a stop string, a dropped
 * assertion line, another choice option) and re-feeds one token to get that point's logits.
 * Where its tokens' keys and values live is its lane's business: a cache of its own, or one row of
 * a cache shared with the plan's other rows (planBatch.ts). On a lane that allows it, each pass
 * also feeds a prompt-lookup guess at the token after (lookahead.ts); when the token queued next
 * is that guess, its logits are already there and the pass that would feed it is skipped.
 */
import { emptyLookaheadStats, lookupGuess, type LookaheadStats } from '../lookahead';
import { ModelError } from '../types';
import { RepetitionHistory } from '../repetition';
import type { CausalLmSession, KvCache } from './causalLmSession';

/** The cache one sequence is decoded in. */
export interface CacheLane {
  /** Runs `ids` after the lane's first `fed` tokens; the logits after each (`allRows`) or after the last. */
  forward(ids: number[], fed: number, allRows: boolean): Promise<Float32Array[]>;
  /** Keeps only the lane's first `length` tokens. */
  truncate(length: number): void;
  /** Whether a pass may carry a guessed token (cheap to cut back again). */
  readonly lookahead: boolean;
}

/** A lane with a cache of its own (batch 1). */
export class OwnCacheLane implements CacheLane {
  readonly lookahead: boolean;

  constructor(
    private readonly session: CausalLmSession,
    /** The cache as the last pass or cut left it (at least the cursor's fed tokens). */
    public cache: KvCache,
    lookahead = true,
  ) {
    // Cutting a copying cache back copies all of it; an in-place one only shortens its mask.
    this.lookahead = lookahead && session.graphKind === 'in-place-cache';
  }

  async forward(ids: number[], fed: number, allRows: boolean): Promise<Float32Array[]> {
    const out = await this.session.forward({
      ids,
      batch: 1,
      seq: ids.length,
      mask: new Array<number>(fed + ids.length).fill(1),
      positions: ids.map((_, i) => fed + i),
      past: this.cache,
      allLogits: allRows,
    });
    this.cache = out.present;
    const row = (i: number) => out.logits.slice(i * out.vocab, (i + 1) * out.vocab);
    return allRows ? ids.map((_, i) => row(i)) : [row(out.rows - 1)];
  }

  truncate(length: number): void {
    this.cache = this.session.truncateCache(this.cache, length);
  }
}

export interface CursorModel {
  encode(text: string): number[];
  contextWindow: number;
  modelName: string;
  isAborted(): boolean;
}

export class PlanCursor {
  /** Prompt and plan tokens the cache holds (plus `pendingIds` once fed). */
  readonly ids: number[];
  private pendingIds: number[] = [];
  private pendingText = '';
  private logitsRow: Float32Array;
  /** A guessed token the lane holds after `ids`, and the logits after it. */
  private guess: { token: number; logits: Float32Array } | undefined;
  readonly lookaheadStats: LookaheadStats = emptyLookaheadStats();

  constructor(
    private readonly model: CursorModel,
    readonly promptLength: number,
    prompt: number[],
    private readonly lane: CacheLane,
    logits: Float32Array,
    readonly history: RepetitionHistory,
  ) {
    this.ids = [...prompt];
    this.logitsRow = logits;
  }

  /** Tokens in the sequence once everything pending is fed (pending text is tokenised now). */
  get length(): number {
    if (this.pendingText) this.flushTextIntoIds();
    return this.ids.length + this.pendingIds.length;
  }

  /** Tokens the cache holds (what `rewind` positions refer to). */
  get fedLength(): number {
    return this.ids.length;
  }

  queueText(text: string): void {
    this.pendingText += text;
  }

  queueToken(id: number): void {
    if (this.pendingText) this.flushTextIntoIds();
    if (this.guess && this.pendingIds.length === 0 && id === this.guess.token) {
      // The lane holds this token already: record it, and its logits are the next ones.
      this.record([id]);
      this.logitsRow = this.guess.logits;
      this.guess = undefined;
      this.lookaheadStats.accepted++;
      return;
    }
    this.pendingIds.push(id);
  }

  /** Pending text, taken back (a choice scores a trailing space with its options). */
  takeTrailingSpace(): string {
    if (!this.pendingText.endsWith(' ')) return '';
    this.pendingText = this.pendingText.slice(0, -1);
    return ' ';
  }

  /** The next-token logits after everything queued, feeding it first. */
  async logits(): Promise<Float32Array> {
    if (this.pendingText) this.flushTextIntoIds();
    if (this.pendingIds.length > 0) {
      const ids = this.pendingIds;
      this.pendingIds = [];
      const guess = this.guessAfter(ids);
      if (guess === undefined) {
        const rows = await this.forward(ids);
        this.logitsRow = rows[rows.length - 1];
      } else {
        const rows = await this.forward(ids, true, guess);
        this.logitsRow = rows[ids.length - 1];
        this.guess = { token: guess, logits: rows[ids.length] };
        this.lookaheadStats.guessed++;
      }
    }
    return this.logitsRow;
  }

  /**
   * A guess at the token after `ids`, where the lane allows one and the context has room. Only
   * after a single token: a pass over forced text would compute logits for every one of its tokens.
   */
  private guessAfter(ids: number[]): number | undefined {
    if (!this.lane.lookahead || ids.length !== 1 || this.ids.length + 2 >= this.model.contextWindow)
      return undefined;
    return lookupGuess(this.ids.concat(ids));
  }

  /** Cuts a guess the lane holds back out, before anything else is fed or cut. */
  private dropGuess(): void {
    if (!this.guess) return;
    this.lane.truncate(this.ids.length);
    this.guess = undefined;
  }

  /** Cuts the sequence back to its first `length` tokens (`length` >= the prompt's). */
  rewind(length: number): void {
    if (this.pendingText) this.flushTextIntoIds();
    this.dropGuess();
    if (length < this.promptLength) throw new Error('rewind into the prompt');
    if (length >= this.ids.length) {
      this.pendingIds = this.pendingIds.slice(0, length - this.ids.length);
      return;
    }
    // One token before the cut is fed again, so that the cut point has its logits.
    const keep = length - 1;
    const refeed = this.ids[keep];
    this.lane.truncate(keep);
    this.ids.length = keep;
    this.history.rewind(Math.max(0, keep - this.promptLength));
    this.pendingIds = [refeed];
  }

  /** A point to come back to with `rewindKeepingLogits`, without re-feeding anything. */
  mark(): { length: number; logits: Float32Array } {
    if (this.pendingIds.length > 0 || this.pendingText) throw new Error('mark() with pending input');
    return { length: this.ids.length, logits: this.logitsRow };
  }

  rewindKeepingLogits(point: { length: number; logits: Float32Array }): void {
    this.guess = undefined;
    this.lane.truncate(point.length);
    this.ids.length = point.length;
    this.history.rewind(point.length - this.promptLength);
    this.pendingIds = [];
    this.pendingText = '';
    this.logitsRow = point.logits;
  }

  private flushTextIntoIds(): void {
    this.pendingIds.push(...this.model.encode(this.pendingText));
    this.pendingText = '';
  }

  /** Runs `ids` through the model after the cache and records them as fed; the logits after each. */
  async feed(ids: number[]): Promise<Float32Array[]> {
    if (this.pendingText || this.pendingIds.length > 0) throw new Error('feed() with pending input');
    const rows = await this.forward(ids, true);
    this.logitsRow = rows[rows.length - 1];
    return rows;
  }

  /**
   * Feeds `ids` (and a `guess` after them, fed but not recorded); returns the logits after each
   * (`allRows`) or after the last only.
   */
  private async forward(ids: number[], allRows = false, guess?: number): Promise<Float32Array[]> {
    if (this.model.isAborted()) throw new ModelError('The generation was cancelled.', 'aborted');
    this.dropGuess();
    const total = this.ids.length + ids.length;
    if (total >= this.model.contextWindow) {
      throw new ModelError(
        `The plan needs more than the ${this.model.contextWindow} tokens ${this.model.modelName} reads at once.`,
        'context-overflow',
        'Shorten the prompt or lower the token budgets of the free segments.',
      );
    }
    const fed = guess === undefined ? ids : [...ids, guess];
    const rows = await this.lane.forward(fed, this.ids.length, allRows);
    this.record(ids);
    return rows;
  }

  private record(ids: number[]): void {
    for (const id of ids) {
      this.ids.push(id);
      // Prompt tokens fed again after a rewind are not the model's own output.
      if (this.ids.length > this.promptLength) this.history.push(id);
    }
  }
}
