import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_MODEL_ID } from './ladder/catalog';

/**
 * Name of the embedded default model: the default rung of the model ladder, installed by
 * scripts/setup.sh (`stepwise models install qwen2.5-coder-0.5b-instruct`) as the exact q4 ONNX
 * graph converted from Qwen's GGUF. The test suites use SmolLM2-135M instead (see test/testModel.ts).
 */
export const DEFAULT_MODEL_NAME = 'Qwen2.5-Coder-0.5B-Instruct';

/** The ONNX weights file the default model comes as (the GGUF conversion writes only this one). */
export const DEFAULT_VARIANT = 'q4';

/** The folder that holds one folder per local model: the user's cache. */
export function modelsRoot(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'stepwise', 'models');
}

/** The folder of a model of the ladder: one per id under the models root. */
export function ladderModelDir(id: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(modelsRoot(env), id);
}

/**
 * The model used when the user has picked none: $STEPWISE_MODEL_DIR (any model folder; the test
 * suites point it at SmolLM2), else the default rung's folder in the user's cache.
 */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.STEPWISE_MODEL_DIR) return env.STEPWISE_MODEL_DIR;
  return ladderModelDir(DEFAULT_MODEL_ID, env);
}
