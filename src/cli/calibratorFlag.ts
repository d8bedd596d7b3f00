import * as path from 'node:path';
import { UsageError } from './command';
import { DEFAULT_CALIBRATOR_FILE, loadCalibrator } from '../core/judgment/judge';
import type { RoundCalibrator } from '../core/prove/judgeRound';
import { resourcePath } from '../core/resources';

/**
 * `--calibrator FILE`, or the shipped calibrator when none is named: read before the model loads,
 * so an unreadable file is refused at once instead of after minutes of loading.
 */
export function readCalibratorFlag(file: string | undefined): RoundCalibrator {
  const resolved = path.resolve(file ?? resourcePath(DEFAULT_CALIBRATOR_FILE));
  try {
    return { calibrator: loadCalibrator(resolved), source: path.basename(resolved) };
  } catch (err) {
    throw new UsageError(`--calibrator: ${(err as Error).message}`);
  }
}
