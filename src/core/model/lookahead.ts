/**
 * Lookahead by prompt lookup: a guess at the token after the next one, taken from the text the
 * sequence already holds, and fed in the same forward pass as the next token. On a 2-core CPU one
 * pass is bound by reading the weights, so a pass of two tokens costs about 7 % more than a pass
 * of one; when the sampled token equals the guess, the pass that would have fed it is skipped.
 * The guess never decides a token: each token is still chosen from the logits of its own prefix,
 * so the output is the one plain decoding gives (the same random draws in the same order).
 */

/** The longest n-gram whose earlier occurrence is looked for (then shorter ones). */
const MAX_NGRAM = 3;
/** How far back the search goes: a few thousand integer comparisons per token, a few µs. */
const SEARCH_WINDOW = 4096;

/**
 * The token that followed the most recent earlier occurrence of the sequence's last n tokens,
 * for n = 3, 2, 1 in turn; undefined when none of them occurred before.
 */
export function lookupGuess(ids: readonly number[]): number | undefined {
  const end = ids.length;
  const floor = Math.max(0, end - SEARCH_WINDOW);
  for (let n = Math.min(MAX_NGRAM, end - 1); n >= 1; n--) {
    // An occurrence starting at s must leave a token after it (s + n < end) and not be the suffix itself.
    for (let s = end - n - 1; s >= floor; s--) {
      let same = true;
      for (let j = 0; j < n; j++) {
        if (ids[s + j] !== ids[end - n + j]) {
          same = false;
          break;
        }
      }
      if (same) return ids[s + n];
    }
  }
  return undefined;
}

/** How often the guess was fed and how often it was the token chosen. */
export interface LookaheadStats {
  guessed: number;
  accepted: number;
}

export function emptyLookaheadStats(): LookaheadStats {
  return { guessed: 0, accepted: 0 };
}
