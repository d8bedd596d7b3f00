import * as os from 'node:os';
import * as path from 'node:path';

/** Name of the embedded default model, built offline by scripts/build-default-model.sh. */
export const DEFAULT_MODEL_NAME = 'SmolLM2-135M-Instruct';

/** The folder that holds one folder per local model: the user's cache. */
export function modelsRoot(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'stepwise', 'models');
}

/** Where the default model is built and looked for: $STEPWISE_MODEL_DIR, else the user's cache. */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.STEPWISE_MODEL_DIR) return env.STEPWISE_MODEL_DIR;
  return path.join(modelsRoot(env), DEFAULT_MODEL_NAME);
}

/** The folder of a model of the ladder: the default model's folder for the default, else one per id. */
export function ladderModelDir(id: string, env: NodeJS.ProcessEnv = process.env): string {
  return id === DEFAULT_MODEL_NAME ? defaultModelDir(env) : path.join(modelsRoot(env), id);
}
