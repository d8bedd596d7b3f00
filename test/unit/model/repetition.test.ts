import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_REPETITION,
  RepetitionHistory,
  repetitionSettings,
} from '../../../src/core/model/repetition';

test('the n-gram ban forbids exactly the token that would repeat an n-gram', () => {
  const h = new RepetitionHistory(repetitionSettings({ noRepeatNgram: 3, penalty: 1 }));
  for (const t of [5, 6, 7, 5]) h.push(t);
  assert.equal(h.banned(), undefined, '(7, 5) was never followed by anything');
  h.push(6);
  assert.deepEqual([...(h.banned() ?? [])], [7], '5 6 was followed by 7 once: 5 6 7 would repeat');
  const row = new Float32Array([0, 0, 0, 0, 0, 0, 0, 9]);
  const out = h.apply(row);
  assert.equal(out[7], -Infinity);
  assert.equal(row[7], 9, 'the input row is left alone');
});

test('rewinding forgets the n-grams of the dropped tokens but keeps earlier occurrences', () => {
  const h = new RepetitionHistory(repetitionSettings({ noRepeatNgram: 2, penalty: 1 }));
  for (const t of [1, 2, 1, 2]) h.push(t);
  h.rewind(3);
  assert.deepEqual([...(h.banned() ?? [])], [2], '1 -> 2 still occurs at the start');
  h.rewind(1);
  assert.deepEqual([...(h.banned() ?? [])], [], 'the only 1 -> 2 was dropped');
});

test('the penalty divides positive and multiplies negative logits of recent tokens only', () => {
  const h = new RepetitionHistory(repetitionSettings({ penalty: 2, penaltyWindow: 2, noRepeatNgram: 0 }));
  for (const t of [0, 1, 2]) h.push(t);
  const out = h.apply(new Float32Array([4, 4, -4, 4]));
  assert.deepEqual([...out], [4, 2, -8, 4], 'token 0 is outside the window of 2');
});

test('defaults live in one place and turn the n-gram ban on', () => {
  const s = repetitionSettings();
  assert.deepEqual(s, DEFAULT_REPETITION);
  assert.ok(s.noRepeatNgram > 1);
  assert.equal(repetitionSettings({ noRepeatNgram: 0 }).noRepeatNgram, 0);
});
