/**
 * Token selection from one row of logits: a seeded PRNG, log-softmax, and temperature / top-k /
 * top-p (nucleus) sampling. Pure functions, no onnxruntime, so they are tested on their own.
 */

/** A seeded 32-bit PRNG (mulberry32): the same seed gives the same stream on every platform. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    // Mix the seed so that nearby seeds (1, 2, 3) start far apart.
    this.state = Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** A fresh seed for calls that give none. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

export interface SamplingParams {
  /** 0 (or below) means greedy. */
  temperature: number;
  /** 0 or undefined: no top-k cut. */
  topK?: number;
  /** 1 or undefined: no nucleus cut. */
  topP?: number;
}

/** Index of the largest value (the first one on ties, as argmax does elsewhere). */
export function argmax(row: ArrayLike<number>): number {
  let best = 0;
  let bestValue = -Infinity;
  for (let i = 0; i < row.length; i++) {
    if (row[i] > bestValue) {
      bestValue = row[i];
      best = i;
    }
  }
  return best;
}

const EXP_STEPS = 16;
const EXP_LIMIT = 104 * EXP_STEPS;
const EXP_TABLE = Float64Array.from({ length: EXP_LIMIT + 1 }, (_, j) => Math.exp(-j / EXP_STEPS));

/**
 * e^x for x ≤ 0 (other x: Math.exp), to a relative error below 1e-10, about 2.5 times as fast as Math.exp: every
 * decoded token exponentiates its whole row of logits (log-probabilities, sampling), 151,936 values
 * on the default model, which took 3.5–5 ms per token with Math.exp on the 2-core machine (a fifth
 * of a token's time) and 1.5–2 ms this way. e^x = e^(−j/16) from a table times e^d for the rest
 * d ∈ (−1/16, 0], whose Taylor series to d⁵ errs by under (1/16)⁶/720. Below −104 the value
 * (under 1e-45) is 0: beside the row's maximum, whose term is 1, it changes no sum.
 */
export function expNonPositive(x: number): number {
  const y = -x * EXP_STEPS;
  if (y >= EXP_LIMIT) return 0;
  // Outside the table's domain (x > 0, NaN): the library's value.
  if (!(y >= 0)) return Math.exp(x);
  const j = y | 0;
  const d = (j - y) / EXP_STEPS;
  return EXP_TABLE[j] * (1 + d * (1 + d * (1 / 2 + d * (1 / 6 + d * (1 / 24 + d / 120)))));
}

/** log(sum(exp(row))), computed stably. */
export function logSumExp(row: ArrayLike<number>): number {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += expNonPositive(row[i] - max);
  return max + Math.log(sum);
}

/** Natural-log probability of `token` under softmax(row): the unwarped model distribution. */
export function tokenLogprob(row: ArrayLike<number>, token: number, lse = logSumExp(row)): number {
  return row[token] - lse;
}

/**
 * Picks the next token. Warping order follows the common convention (temperature, then top-k,
 * then top-p); `random` is only consumed when sampling, so greedy runs never advance the stream.
 * `banned` tokens (EOS before `minTokens`) are never chosen.
 */
export function selectToken(
  row: ArrayLike<number>,
  params: SamplingParams,
  random: SeededRandom,
  banned?: ReadonlySet<number>,
): number {
  const bans = banned && banned.size > 0 ? banned : undefined;
  if (!(params.temperature > 0)) {
    // Banned tokens seldom win: take the plain argmax and mask only when it is banned.
    const best = argmax(row);
    return bans?.has(best) ? argmax(maskTokens(row, bans)) : best;
  }

  const vocab = row.length;
  const cut =
    (params.topK !== undefined && params.topK > 0 && params.topK < vocab) ||
    (params.topP !== undefined && params.topP > 0 && params.topP < 1);
  // Top-k and top-p choose among the allowed tokens only (the rare case: masked on a copy).
  if (bans && cut) return selectToken(maskTokens(row, bans), params, random);
  let max = -Infinity;
  for (let i = 0; i < vocab; i++) if (row[i] > max) max = row[i];
  const inverse = 1 / params.temperature;
  // One buffer for every call: a fresh vocabulary-sized array per sampled token (1.2 MB on the
  // default model's 151,936 tokens) would be garbage for the collector at decoding speed.
  const weights = scratchWeights(vocab);
  let sum = 0;
  for (let i = 0; i < vocab; i++) {
    weights[i] = expNonPositive((row[i] - max) * inverse);
    sum += weights[i];
  }
  if (bans) {
    for (const id of bans) if (id >= 0 && id < vocab) weights[id] = 0;
    // Summed again rather than reduced: subtracting a dominant banned weight loses the rest's digits.
    sum = 0;
    for (let i = 0; i < vocab; i++) sum += weights[i];
    // Everything allowed underflowed beside a banned favourite: sample from the masked row instead.
    if (!(sum > 0)) return selectToken(maskTokens(row, bans), params, random);
  }

  if (!cut) {
    // The common case without cuts: one scan over the unnormalised weights.
    let u = random.next() * sum;
    for (let i = 0; i < vocab; i++) {
      u -= weights[i];
      if (u < 0) return i;
    }
    return bans ? argmax(maskTokens(row, bans)) : argmax(row);
  }

  for (let i = 0; i < vocab; i++) weights[i] /= sum;
  const candidates = topCandidates(weights, params.topK, params.topP);
  let mass = 0;
  for (const i of candidates) mass += weights[i];
  let u = random.next() * mass;
  for (const i of candidates) {
    u -= weights[i];
    if (u < 0) return i;
  }
  return candidates[0];
}

let scratch = new Float64Array(0);

function scratchWeights(length: number): Float64Array {
  if (scratch.length < length) scratch = new Float64Array(length);
  return scratch.subarray(0, length);
}

function maskTokens(row: ArrayLike<number>, banned: ReadonlySet<number>): Float32Array {
  const copy = Float32Array.from(row);
  for (const id of banned) if (id >= 0 && id < copy.length) copy[id] = -Infinity;
  return copy;
}

/**
 * The tokens that survive top-k and then top-p, in descending probability. As in the common
 * implementations, top-p works on the distribution renormalised over the top-k set; the nucleus
 * is the smallest top set whose mass reaches `topP` (the crossing token included). To avoid
 * sorting the whole vocabulary each step, tokens above a threshold are collected first and the
 * threshold lowered until the pool surely holds every survivor.
 */
export function topCandidates(probs: Float64Array, topK?: number, topP?: number): number[] {
  const vocab = probs.length;
  const k = topK && topK > 0 ? Math.min(Math.floor(topK), vocab) : vocab;
  const p = topP !== undefined && topP > 0 && topP < 1 ? topP : 1;
  if (k === vocab && p === 1) return Array.from({ length: vocab }, (_, i) => i);

  let pool: number[] = [];
  for (let threshold = 1e-3; threshold > 1e-30; threshold /= 16) {
    pool = [];
    let mass = 0;
    for (let i = 0; i < vocab; i++) {
      if (probs[i] >= threshold) {
        pool.push(i);
        mass += probs[i];
      }
    }
    // Enough when the pool holds the k best tokens, or (without a k cut) the nucleus.
    if (k < vocab ? pool.length >= k : mass >= p) break;
  }
  if (k < vocab ? pool.length < k : false) pool = Array.from({ length: vocab }, (_, i) => i);
  pool.sort((a, b) => probs[b] - probs[a] || a - b);
  if (pool.length > k) pool.length = k;

  if (p < 1) {
    let kept = 0;
    for (const i of pool) kept += probs[i];
    let cumulative = 0;
    for (let i = 0; i < pool.length; i++) {
      cumulative += probs[pool[i]];
      if (cumulative >= p * kept) {
        pool.length = i + 1;
        break;
      }
    }
  }
  return pool;
}

/**
 * Picks a token that `accepts` admits (a grammar's check), from the model's distribution
 * restricted to the admitted tokens. The unconstrained pick is tried first and kept when
 * admitted: for sampling this is exact (a rejected draw is redrawn from the restricted
 * distribution, which is rejection sampling's result), and it checks one token in the common
 * case. Otherwise tokens are checked in descending probability, the likely ones first. Returns
 * undefined when no token is admitted.
 */
export function selectAllowed(
  row: ArrayLike<number>,
  params: SamplingParams,
  random: SeededRandom,
  accepts: (token: number) => boolean,
): number | undefined {
  const first = selectToken(row, params, random);
  if (Number.isFinite(row[first]) && accepts(first)) return first;

  const greedy = !(params.temperature > 0);
  const inverse = greedy ? 1 : 1 / params.temperature;
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  if (max === -Infinity) return undefined;
  // Tokens within 20 nats of the best hold all but a negligible share of the mass.
  for (const floor of [max - 20, -Infinity]) {
    const pool: number[] = [];
    for (let i = 0; i < row.length; i++) {
      if (row[i] >= floor && Number.isFinite(row[i]) && (floor !== -Infinity || row[i] < max - 20))
        pool.push(i);
    }
    pool.sort((a, b) => row[b] - row[a] || a - b);
    const admitted: number[] = [];
    for (const i of pool) {
      if (!accepts(i)) continue;
      if (greedy) return i;
      admitted.push(i);
    }
    if (admitted.length === 0) continue;
    const weights = new Float64Array(admitted.length);
    let sum = 0;
    for (let j = 0; j < admitted.length; j++) {
      weights[j] = Math.exp((row[admitted[j]] - row[admitted[0]]) * inverse);
      sum += weights[j];
    }
    for (let j = 0; j < weights.length; j++) weights[j] /= sum;
    const kept = topCandidates(weights, params.topK, params.topP);
    let mass = 0;
    for (const j of kept) mass += weights[j];
    let u = random.next() * mass;
    for (const j of kept) {
      u -= weights[j];
      if (u < 0) return admitted[j];
    }
    return admitted[kept[0]];
  }
  return undefined;
}
