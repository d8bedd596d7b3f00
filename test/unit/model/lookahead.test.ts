import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lookupGuess } from '../../../src/core/model/lookahead';

test('the guess is what followed the most recent earlier occurrence of the last tokens', () => {
  // "1 2 3" occurred twice before; the later occurrence was followed by 9.
  assert.equal(lookupGuess([1, 2, 3, 4, 7, 1, 2, 3, 9, 5, 1, 2, 3]), 9);
});

test('a longer matching n-gram wins over a more recent shorter one', () => {
  // The trigram 5 6 7 was followed by 8; the bigram 6 7 more recently by 2.
  assert.equal(lookupGuess([5, 6, 7, 8, 0, 6, 7, 2, 4, 5, 6, 7]), 8);
});

test('with no earlier occurrence there is no guess', () => {
  assert.equal(lookupGuess([1, 2, 3, 4, 5]), undefined);
  assert.equal(lookupGuess([]), undefined);
  assert.equal(lookupGuess([7]), undefined);
});

test('a single repeated token guesses itself', () => {
  assert.equal(lookupGuess([4, 4]), 4);
});
