import * as os from 'node:os';
import * as path from 'node:path';

/** Name of the embedded default model, built offline by scripts/build-default-model.sh. */
export const DEFAULT_MODEL_NAME = 'SmolLM2-135M-Instruct';

/** Where the default model is built and looked for: $STEPWISE_MODEL_DIR, else the user's cache. */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.STEPWISE_MODEL_DIR) return env.STEPWISE_MODEL_DIR;
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'stepwise', 'models', DEFAULT_MODEL_NAME);
}
