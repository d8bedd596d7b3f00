/** Messages between a model install running in a worker thread and its caller. */

import type { InstallResult } from './installer';
import type { InstallProgress } from './progress';
import type { ModelVariant } from './variants';

export type InstallWorkerRequest =
  | {
      type: 'install';
      id: string;
      variant?: ModelVariant;
      modelDir?: string;
      filesBaseUrl?: string;
      env?: NodeJS.ProcessEnv;
    }
  | { type: 'cancel' };

export type InstallWorkerReply =
  | { type: 'progress'; progress: InstallProgress }
  | { type: 'done'; result: InstallResult }
  | { type: 'error'; message: string; code?: string; hint?: string };
