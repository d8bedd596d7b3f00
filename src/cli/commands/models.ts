import type { CliCommand } from '../command';
import { parseCommandLine, UsageError } from '../command';
import { defaultModelDir } from '../../core/model/defaults';
import {
  describeFirstProblems,
  describeSpeed,
  downloadBytes,
  formatBytes,
} from '../../core/model/ladder/index';
import { installById, listLadder } from '../../core/model/ladder/local';
import { isModelVariant } from '../../core/model/ladder/variants';
import { ProgressPrinter } from '../progressPrinter';

const USAGE = `stepwise models list [--json]
       stepwise models install <id> [--variant exact|fast] [--dir DIR] [--mirror URL]   (mirror: $STEPWISE_PYPI_FILES_URL)
  --variant fast: the GGUF's 5/6-bit tensors re-quantized to 4-bit blocks (faster, not exact),
                  in <model folder>-fast beside the exact one; load it with --variant fast.`;

const STATE_WORDS = { installed: 'installed', 'needs-conversion': 'downloaded, not converted', absent: '—' };

async function list(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, { json: { type: 'boolean' } }, false);
  const entries = await listLadder();
  const inUse = defaultModelDir();
  if (values.json) {
    const rows = entries.map(({ model, dir, state, diskBytes, variants }) => ({
      id: model.id,
      name: model.displayName,
      rung: model.rung,
      goodFor: model.goodFor,
      firstProblems: model.firstProblems,
      downloadBytes: downloadBytes(model),
      ggufBytes: model.gguf.size,
      memoryGb: model.memoryGb,
      speed: model.speed,
      licence: model.licence.spdx,
      dir,
      state,
      diskBytes: diskBytes ?? null,
      default: dir === inUse,
      variants: variants.map((v) => ({ ...v, default: v.dir === inUse })),
    }));
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return 0;
  }
  for (const { model, dir, state, diskBytes, variants } of entries) {
    const mark = dir === inUse ? ' (default)' : '';
    const fast = variants.find((v) => v.variant === 'fast');
    process.stdout.write(
      [
        `${model.id}${mark} — ${model.displayName}, ${model.rung}`,
        `  ${model.goodFor} ${describeFirstProblems(model)}.`,
        `  ${diskBytes ? `${formatBytes(diskBytes)} on disk` : `${formatBytes(downloadBytes(model))} to download`}, ${model.memoryGb} GB memory, ${describeSpeed(model)}`,
        `  ${model.licence.spdx}, by ${model.licence.holder}; ${STATE_WORDS[state]}${state === 'absent' ? '' : ` in ${dir}`}`,
        ...(fast && fast.state !== 'absent'
          ? [`  fast variant: ${STATE_WORDS[fast.state]} in ${fast.dir}`]
          : []),
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
    variant: { type: 'string' },
  });
  if (positionals.length !== 1)
    throw new UsageError('install needs exactly one model id (see `stepwise models list`).');
  const variant = values.variant ?? 'exact';
  if (!isModelVariant(variant)) throw new UsageError(`--variant must be exact or fast, not "${variant}".`);
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once('SIGINT', onInterrupt);
  const printer = new ProgressPrinter(process.stderr);
  try {
    const result = await installById(positionals[0], {
      variant,
      modelDir: values.dir,
      filesBaseUrl: values.mirror ?? (process.env.STEPWISE_PYPI_FILES_URL || undefined),
      signal: controller.signal,
      onProgress: (p) => printer.update(p),
    });
    printer.done();
    const converted = result.record.conversion
      ? `converted to ONNX (${result.record.conversion.variant ?? 'exact'} graph) by ${result.record.conversion.converterVersion}`
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
