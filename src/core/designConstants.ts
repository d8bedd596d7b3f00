/**
 * The design constants the extension shares with the trainer, from the one data file both read
 * (the trainer package ships it): the reward weights α and β and the practice set's reliability
 * thresholds. package.json repeats them as setting defaults, and a unit test keeps those equal.
 */
import constants from '../../trainer/stepwise_trainer/design_constants.json';

export const DESIGN_CONSTANTS: {
  rewards: { alpha: number; beta: number };
  practice: { thresholds: { cons: number; sep: number; stab: number } };
} = constants;
