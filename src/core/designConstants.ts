/**
 * The design constants the extension shares with the trainer, from the one data file both read
 * (protocol/design-constants.json, owned by neither): the reward weights α and β and the practice
 * set's reliability thresholds. package.json repeats them as setting defaults, and a unit test
 * keeps those equal.
 */
import constants from '../../protocol/design-constants.json';

export const DESIGN_CONSTANTS: {
  rewards: { alpha: number; beta: number };
  practice: { thresholds: { cons: number; sep: number; stab: number } };
} = constants;
