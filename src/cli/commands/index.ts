import type { CliCommand } from '../command';
import { convertGgufCommand } from './convertGguf';
import { labelsCommand } from './labels';
import { practiceCommand } from './practice';
import { calibrationCommand, parseProofCommand, proveCommand } from './prove';
import { sandboxCommand } from './sandbox';
import { scoreStepsCommand } from './scoreSteps';
import { testsCommand } from './tests';

// Every subcommand module registers here (one line each, alphabetical).
export const commands: CliCommand[] = [
  calibrationCommand,
  convertGgufCommand,
  labelsCommand,
  parseProofCommand,
  practiceCommand,
  proveCommand,
  sandboxCommand,
  scoreStepsCommand,
  testsCommand,
];
