/**
 * Seeded shuffling of the UI specs, to catch a spec that passes only after (or before) another.
 * The same seed gives the same order on every machine, so a failing order can be replayed.
 */
import { randomInt } from 'node:crypto';

/** FNV-1a: any seed text (a number, a date, a word) becomes the generator's 32-bit state. */
function seedState(seed: string): number {
  let h = 0x811c9dc5;
  for (const ch of seed) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small, well-mixed generator of floats in [0, 1). */
function generator(state: number): () => number {
  let a = state;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates with the seeded generator; the input is left as it was. */
export function seededShuffle<T>(items: readonly T[], seed: string): T[] {
  const next = generator(seedState(seed));
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The seed STEPWISE_TEST_SHUFFLE asks for: unset or empty means file order; `random` draws a
 * fresh seed (printed, so the run can be replayed); any other value is the seed itself.
 */
export function shuffleSeed(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value.trim() === 'random' ? String(randomInt(1, 1_000_000)) : value.trim();
}
