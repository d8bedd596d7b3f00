/** One `stepwise` subcommand. Each lives in src/cli/commands/<name>.ts and is listed in src/cli/commands/index.ts. */
export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code. Writes results to stdout, diagnostics to stderr. */
  run(argv: string[]): Promise<number>;
}

/** A usage error: printed with the command's usage line, exit code 2. */
export class UsageError extends Error {}
