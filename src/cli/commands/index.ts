import type { CliCommand } from '../command';

// Every subcommand module registers here (one line each, alphabetical).
export const commands: CliCommand[] = [];
