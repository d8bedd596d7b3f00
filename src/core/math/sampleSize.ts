/**
 * Below this many items a rate, an ECE or an AUROC moves a lot from one sample to the next (the
 * standard error of a rate near ½ is still about 0.09 at n = 30), so every view that shows one
 * says so next to the figure: the panels (which bundle this module; it imports nothing) and the
 * evaluation report.
 */
export const SMALL_SAMPLE = 30;

/** Whether a figure computed from `n` items must carry the small-sample mark (none for no items at all). */
export function isSmallSample(n: number): boolean {
  return n > 0 && n < SMALL_SAMPLE;
}

/** The warning to show beside a figure computed from `n` items; null when n is large enough. */
export function smallSampleWarning(n: number, what = 'figures'): string | null {
  if (!isSmallSample(n)) return null;
  return `Small sample: these ${what} come from ${n} item${n === 1 ? '' : 's'} (fewer than ${SMALL_SAMPLE}), so they can change a lot with a few more; read them as rough.`;
}
