/** Where the unit tests find the tiny seeded Llama model (built before the unit tests run). */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const TINY_MODEL_BUILD_COMMAND = 'bash scripts/build-tiny-model.sh';

/** The tiny model's folder: $STEPWISE_TINY_MODEL_DIR (as for the build script), else .cache/models/tiny-llama in the repository. */
export function tinyModelDir(): string {
  // Compiled tests live in out/test/unit/model, four levels below the repository root.
  const dir =
    process.env.STEPWISE_TINY_MODEL_DIR ??
    resolve(__dirname, '..', '..', '..', '..', '.cache', 'models', 'tiny-llama');
  if (!existsSync(join(dir, 'config.json')) || !existsSync(join(dir, 'onnx', 'model.onnx'))) {
    throw new Error(`The tiny test model is missing at ${dir}. Build it first: ${TINY_MODEL_BUILD_COMMAND}`);
  }
  return dir;
}

/** The tiny process reward model's folder (with reference_scores.json from PyTorch), built by the same script. */
export function tinyPrmDir(): string {
  const dir =
    process.env.STEPWISE_TINY_PRM_DIR ??
    resolve(__dirname, '..', '..', '..', '..', '.cache', 'models', 'tiny-prm');
  if (!existsSync(join(dir, 'reference_scores.json'))) {
    throw new Error(`The tiny test PRM is missing at ${dir}. Build it first: ${TINY_MODEL_BUILD_COMMAND}`);
  }
  return dir;
}
