import type { CliCommand } from '../command';
import { checkCommand } from './check';
import { convertGgufCommand } from './convertGguf';
import { evalCommand } from './eval';
import { judgmentCommand } from './judgment';
import { labelsCommand } from './labels';
import { loopCommand } from './loop';
import { modelsCommand } from './models';
import { practiceCommand } from './practice';
import { calibrationCommand, parseProofCommand, proveCommand } from './prove';
import { sandboxCommand } from './sandbox';
import { scoreStepsCommand } from './scoreSteps';
import { testsCommand } from './tests';

// Every subcommand module registers here (one line each, alphabetical).
export const commands: CliCommand[] = [
  calibrationCommand,
  checkCommand,
  convertGgufCommand,
  evalCommand,
  judgmentCommand,
  labelsCommand,
  loopCommand,
  modelsCommand,
  parseProofCommand,
  practiceCommand,
  proveCommand,
  sandboxCommand,
  scoreStepsCommand,
  testsCommand,
];
