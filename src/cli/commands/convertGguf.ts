import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { parseCommandLine, UsageError } from '../command';
import { convertGgufToOnnx, GgufFormatError, UnsupportedModelError } from '../../core/model/gguf/index';

const USAGE = 'stepwise convert-gguf FILE.gguf --out DIR [--json]';

/**
 * Turns a GGUF (llama or qwen2 architecture) into a model folder the ONNX backend loads, with the
 * quantized weights carried over exactly. Progress goes to stderr; the report to stdout.
 */
export const convertGgufCommand: CliCommand = {
  name: 'convert-gguf',
  summary: 'Convert a GGUF model (SmolLM2, Qwen2.5) into an ONNX model folder, weights carried over exactly',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseCommandLine(argv, {
      out: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('Give exactly one GGUF file.');
    if (!values.out) throw new UsageError('--out DIR is required (the model folder to write).');
    const source = positionals[0];
    if (!existsSync(source)) throw new UsageError(`${source} does not exist.`);
    let lastLine = '';
    const progress = (line: string) => {
      if (line === lastLine) return;
      lastLine = line;
      process.stderr.write(`${line}\n`);
    };
    try {
      const report = await convertGgufToOnnx(source, path.resolve(values.out), {
        onProgress: (p) =>
          progress(
            p.stage === 'layers'
              ? `converting layer ${p.done}/${p.total}`
              : `${p.stage}${p.stage === 'done' ? '' : '…'}`,
          ),
      });
      if (values.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      else {
        const types = Object.entries(report.tensorTypes)
          .map(([t, n]) => `${n} ${t}`)
          .join(', ');
        process.stdout.write(
          `${report.modelName} (${report.architecture}, ${report.layers} layers; tensors ${types})\n` +
            `→ ${report.outDir} (${(report.weightBytes / 2 ** 20).toFixed(0)} MiB of weights) in ${report.seconds.toFixed(1)} s\n` +
            `Load it with --model-dir ${report.outDir} --variant q4 (or stepwise.model.onnx.path and variant q4).\n`,
        );
      }
      return 0;
    } catch (e) {
      if (e instanceof GgufFormatError || e instanceof UnsupportedModelError) {
        process.stderr.write(`stepwise convert-gguf: ${source}: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  },
};
