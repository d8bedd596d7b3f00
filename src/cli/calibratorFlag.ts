import * as path from 'node:path';
import { UsageError } from './command';
import { loadCalibrator, loadShippedCalibrators } from '../core/judgment/judge';
import type { CalibratorChoice } from '../core/prove/judgeRound';

/**
 * `--calibrator FILE`, or the shipped calibrators when none is named (the run then uses the one
 * fitted on its models, else the default): read before the model loads, so an unreadable file is
 * refused at once instead of after minutes of loading.
 */
export function readCalibratorFlag(file: string | undefined): CalibratorChoice {
  try {
    if (!file) return loadShippedCalibrators();
    const resolved = path.resolve(file);
    return { calibrator: loadCalibrator(resolved), source: path.basename(resolved) };
  } catch (err) {
    throw new UsageError(`--calibrator: ${(err as Error).message}`);
  }
}
