import { commands } from './commands/index';
import { UsageError } from './command';

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
    process.stderr.write(`stepwise ${name}: ${e.message}\n${e.hint ? `hint: ${e.hint}\n` : ''}`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`stepwise: ${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
