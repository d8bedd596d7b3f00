import { parseArgs, type ParseArgsConfig } from 'node:util';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

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

/**
 * node:util's parseArgs in strict mode, its errors turned into UsageErrors so the user sees the
 * command's usage line. Positionals are allowed unless `positionals: false`.
 */
export function parseCommandLine<const O extends ParseArgsOptionsConfig>(
  args: string[],
  options: O,
  positionals = true,
) {
  try {
    return parseArgs({ args, options, allowPositionals: positionals, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
