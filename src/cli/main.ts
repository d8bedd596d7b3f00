import { commands } from './commands/index';
import { UsageError } from './command';
import { cliHint, oneLineError } from './errors';
import { releaseAllSandboxes } from '../core/sandbox/cleanup';

const VERSION = '0.1.0';

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 8);
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    `stepwise ${VERSION} — proof and code reasoning on a local model`,
    '',
    'Usage: stepwise <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `stepwise <command> --help` for the options of one command.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help() + '\n');
    return 0;
  }
  if (name === '--version') {
    process.stdout.write(VERSION + '\n');
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`stepwise: unknown command "${name}"\n\n${help()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.summary}\n\nUsage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`stepwise ${name}: ${err.message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    const e = err as Error & { hint?: string };
    const hint = e.hint ? cliHint(e.hint) : undefined;
    process.stderr.write(`stepwise ${name}: ${oneLineError(e)}\n${hint ? `hint: ${hint}\n` : ''}`);
    return 1;
  }
}

/**
 * Process-wide behaviour of the `stepwise` executable (not of `main()`, which tests call):
 * Ctrl-C or SIGTERM removes every sandbox folder, process and cgroup still alive before exiting,
 * and a reader that goes away (`stepwise labels export | head`) ends the output quietly.
 */
let stoppedWith: number | undefined;

function guardProcess(): void {
  const onSignal = (signal: NodeJS.Signals) => {
    releaseAllSandboxes();
    const code = signal === 'SIGINT' ? 130 : 143;
    // A command that listens for the signal itself (an evaluation) stops on its own: it keeps what
    // it finished and closes its model workers, since exiting while a worker is inside
    // onnxruntime aborts the process. A second signal, or 10 s, ends it regardless.
    if (process.listenerCount(signal) > 0) {
      stoppedWith = code;
      process.stderr.write(`stepwise: stopping (${signal}); sandbox folders and processes were removed.\n`);
      process.once(signal, () => process.exit(code));
      setTimeout(() => process.exit(code), 10_000).unref();
      return;
    }
    process.stderr.write(`stepwise: stopped by ${signal}; sandbox folders and processes were removed.\n`);
    process.exit(code);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.on('exit', () => releaseAllSandboxes());
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      releaseAllSandboxes();
      process.exit(process.exitCode ?? 0);
    });
  }
}

/** The `stepwise` executable: main() with the process guards, the exit code set when done. */
export function runCli(argv: string[]): Promise<void> {
  guardProcess();
  return main(argv).then(
    (code) => {
      process.exitCode = stoppedWith ?? code;
    },
    (err) => {
      process.stderr.write(`stepwise: ${oneLineError(err as Error)}\n`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) void runCli(process.argv.slice(2));
