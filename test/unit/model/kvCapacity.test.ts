import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grownCapacity } from '../../../src/core/model/onnx/kvCache';

test('a cache that holds the new columns keeps its capacity', () => {
  assert.equal(grownCapacity(100, 128, 64), 128);
  assert.equal(grownCapacity(128, 128, 64, 4096), 128, 'no growth, so no reserve either');
});

test('a cache grows in whole steps, at least one step past its capacity', () => {
  assert.equal(grownCapacity(129, 128, 64), 192);
  assert.equal(grownCapacity(300, 128, 64), 320);
  assert.equal(grownCapacity(1, 0, 64), 64);
});

test('decoding past a long prompt grows the cache by a quarter, so it is reallocated a few times', () => {
  assert.equal(grownCapacity(2049, 2048, 64), 2560);
  let capacity = 2048;
  let reallocations = 0;
  for (let columns = 2049; columns <= 2048 + 512; columns++) {
    const next = grownCapacity(columns, capacity, 64);
    if (next !== capacity) reallocations++;
    assert.ok(next >= columns);
    capacity = next;
  }
  assert.equal(reallocations, 1, '512 tokens after a 2,048-position cache: one reallocation, not eight');
});

test('a chunked call grows its cache once, to the capacity of the whole call', () => {
  // A 2,000-token prompt in chunks of 128: the first chunk already makes room for all of it.
  const first = grownCapacity(128, 0, 64, 2000);
  assert.equal(first, 2048);
  for (let end = 256; end <= 2000; end += 128) assert.equal(grownCapacity(end, first, 64, 2000), first);
  assert.equal(grownCapacity(2000, first, 64, 2000), first);
});
