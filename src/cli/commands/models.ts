import type { CliCommand } from '../command';
import { parseCommandLine, UsageError } from '../command';
import { defaultModelDir } from '../../core/model/defaults';
import { describeSpeed, downloadBytes, formatBytes } from '../../core/model/ladder/index';
import { installById, listLadder } from '../../core/model/ladder/local';
import { ProgressPrinter } from '../progressPrinter';

const USAGE = `stepwise models list [--json]
       stepwise models install <id> [--dir DIR] [--mirror URL]   (mirror: $STEPWISE_PYPI_FILES_URL)`;

const STATE_WORDS = { installed: 'installed', 'needs-conversion': 'downloaded, not converted', absent: '—' };

async function list(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, { json: { type: 'boolean' } }, false);
  const entries = await listLadder();
  const inUse = defaultModelDir();
  if (values.json) {
    const rows = entries.map(({ model, dir, state, diskBytes }) => ({
      id: model.id,
      name: model.displayName,
      rung: model.rung,
      goodFor: model.goodFor,
      downloadBytes: downloadBytes(model),
      ggufBytes: model.gguf.size,
      memoryGb: model.memoryGb,
      speed: model.speed,
      licence: model.licence.spdx,
      dir,
      state,
      diskBytes: diskBytes ?? null,
      default: dir === inUse,
    }));
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return 0;
  }
  for (const { model, dir, state, diskBytes } of entries) {
    const mark = dir === inUse ? ' (default)' : '';
    process.stdout.write(
      [
        `${model.id}${mark} — ${model.displayName}, ${model.rung}`,
        `  ${model.goodFor}`,
        `  ${diskBytes ? `${formatBytes(diskBytes)} on disk` : `${formatBytes(downloadBytes(model))} to download`}, ${model.memoryGb} GB memory, ${describeSpeed(model)}`,
        `  ${model.licence.spdx}, by ${model.licence.holder}; ${STATE_WORDS[state]}${state === 'absent' ? '' : ` in ${dir}`}`,
        '',
      ].join('\n'),
    );
  }
  return 0;
}

async function install(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    dir: { type: 'string' },
    mirror: { type: 'string' },
  });
  if (positionals.length !== 1)
    throw new UsageError('install needs exactly one model id (see `stepwise models list`).');
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once('SIGINT', onInterrupt);
  const printer = new ProgressPrinter(process.stderr);
  try {
    const result = await installById(positionals[0], {
      modelDir: values.dir,
      filesBaseUrl: values.mirror ?? (process.env.STEPWISE_PYPI_FILES_URL || undefined),
      signal: controller.signal,
      onProgress: (p) => printer.update(p),
    });
    printer.done();
    const converted = result.record.conversion
      ? `converted to ONNX by ${result.record.conversion.converterVersion}`
      : 'as a verified GGUF only: this build has no GGUF converter';
    process.stderr.write(
      result.alreadyInstalled
        ? `${result.record.displayName} is already installed, ${converted}.\n`
        : `${result.record.displayName} installed, ${converted}; sha256 ${result.record.gguf.sha256} checked.\n`,
    );
    process.stdout.write(result.modelDir + '\n');
    return 0;
  } finally {
    printer.done();
    process.off('SIGINT', onInterrupt);
  }
}

/** The model ladder: list what can be installed, install by id (no Python, no pip). */
export const modelsCommand: CliCommand = {
  name: 'models',
  summary: 'List the local model ladder and install a model from it',
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'list') return list(rest);
    if (sub === 'install') return install(rest);
    throw new UsageError(sub ? `unknown subcommand "${sub}".` : 'give a subcommand: list or install.');
  },
};
