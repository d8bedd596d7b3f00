/**
 * The fit / held-out split of problems for judging calibrators: by a stable hash of the problem's
 * id, so the same problem lands on the same side in every run, on every machine, whatever the
 * file's order or the slice evaluated — the shipped calibrator is fitted on one side only and
 * figures are reported on the other.
 */
export type SplitSide = 'fit' | 'held-out';

/** FNV-1a, 32 bits: small, stable across platforms and Node versions. */
export function stableHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Half the problems (by hash) are for fitting, half are held out. */
export function splitOf(problemId: string): SplitSide {
  return stableHash(problemId) % 2 === 0 ? 'fit' : 'held-out';
}

/** The cross-validation fold of a problem among `folds`, independent of its split side. */
export function foldOf(problemId: string, folds: number): number {
  return Math.floor(stableHash(problemId) / 2) % folds;
}
