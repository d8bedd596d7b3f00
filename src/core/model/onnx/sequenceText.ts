/**
 * Turns one sequence's generated token ids into text as they come: incremental decoding that
 * never emits half a UTF-8 character, stop sequences cut from the text, and streamed text held
 * back while it might still become the start of a stop sequence (so a caller never sees text the
 * final result does not contain).
 */

export type DecodeFn = (ids: number[]) => string;

export interface PushResult {
  /** The text this token contributes to the stream (may be empty while text is held back). */
  streamed: string;
  /** True when the text now contains a stop sequence: the sequence is finished. */
  stopped: boolean;
}

export interface SequenceToken {
  id: number;
  /** The token's own decoded text. */
  text: string;
  logprob: number | null;
}

export class SequenceText {
  private readonly ids: number[] = [];
  readonly tokens: SequenceToken[] = [];
  /** Decoded text of all tokens so far (before any stop cut). */
  private text = '';
  /** Window start for incremental decoding: context tokens re-decoded so spacing comes out right. */
  private prefixOffset = 0;
  private readOffset = 0;
  /** How much of `text` has been streamed. */
  private streamedLength = 0;
  /** Where the first stop sequence starts, once one has appeared. */
  private stopAt: number | undefined;
  private readonly longestStop: number;

  constructor(
    private readonly decode: DecodeFn,
    private readonly stops: readonly string[] = [],
  ) {
    this.longestStop = stops.reduce((m, s) => Math.max(m, s.length), 0);
  }

  push(id: number, logprob: number | null): PushResult {
    this.ids.push(id);
    const prefixText = this.decode(this.ids.slice(this.prefixOffset, this.readOffset));
    const fullText = this.decode(this.ids.slice(this.prefixOffset));
    let added = '';
    // A trailing U+FFFD means the token ended inside a multi-byte character: wait for the rest.
    if (fullText.length > prefixText.length && !fullText.endsWith('\uFFFD')) {
      added = fullText.slice(prefixText.length);
      this.prefixOffset = this.readOffset;
      this.readOffset = this.ids.length;
    }
    this.tokens.push({ id, text: added, logprob });
    const searchFrom = Math.max(0, this.text.length - this.longestStop + 1);
    this.text += added;

    if (this.stops.length > 0) {
      let first: number | undefined;
      for (const stop of this.stops) {
        if (stop.length === 0) continue;
        const at = this.text.indexOf(stop, searchFrom);
        if (at >= 0 && (first === undefined || at < first)) first = at;
      }
      if (first !== undefined) {
        this.stopAt = first;
        return { streamed: this.release(first), stopped: true };
      }
    }
    return { streamed: this.release(this.text.length - this.heldBack()), stopped: false };
  }

  /** Text not yet streamed, released when the sequence ends without a stop sequence. */
  flush(): string {
    return this.release(this.stopAt ?? this.text.length);
  }

  /** The result text, cut before the stop sequence. */
  get finalText(): string {
    return this.text.slice(0, this.stopAt ?? this.text.length);
  }

  /** Tokens up to the one that reaches into the final text; tokens wholly inside the stop are dropped. */
  get finalTokens(): SequenceToken[] {
    if (this.stopAt === undefined) return this.tokens;
    const kept: SequenceToken[] = [];
    let start = 0;
    for (const t of this.tokens) {
      if (start >= this.stopAt) break;
      kept.push(t);
      start += t.text.length;
    }
    return kept;
  }

  get tokenCount(): number {
    return this.ids.length;
  }

  private release(upTo: number): string {
    if (upTo <= this.streamedLength) return '';
    const out = this.text.slice(this.streamedLength, upTo);
    this.streamedLength = upTo;
    return out;
  }

  /** Length of the longest suffix of the text that is a proper prefix of some stop sequence. */
  private heldBack(): number {
    let held = 0;
    for (const stop of this.stops) {
      for (let len = Math.min(stop.length - 1, this.text.length); len > held; len--) {
        if (this.text.endsWith(stop.slice(0, len))) {
          held = len;
          break;
        }
      }
    }
    return held;
  }
}
