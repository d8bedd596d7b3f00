// Its own module, free of Node APIs, because the calibration report that uses it is also compiled
// into the panels (through their protocol's types).

/**
 * Whether a run's scores may be learnt from or measured: a cancelled run stopped wherever the person
 * stopped it, so its judgments are partial and its problem was not one they wanted answered. It
 * stays saved (nothing shown is lost) but calibration and training data leave it out.
 */
export function isDataRun(run: { status?: unknown }): boolean {
  return run.status !== 'cancelled';
}
