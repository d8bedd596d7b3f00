import { promptOverrides } from '../core/prove/prompts';
import { UsageError } from './command';

/** Refuses a `--prompts-dir` that would silently change nothing, before any model is loaded. */
export function checkPromptsDir(dir: string): void {
  try {
    promptOverrides(dir);
  } catch (err) {
    throw new UsageError(`--prompts-dir: ${(err as Error).message}`);
  }
}
