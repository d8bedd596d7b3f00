import type { CliCommand } from '../command';
import { practiceCommand } from './practice';

// Every subcommand module registers here (one line each, alphabetical).
export const commands: CliCommand[] = [practiceCommand, ];
