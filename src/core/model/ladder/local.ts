/**
 * The ladder on this machine: where each model's folder is, what is installed there, and an install
 * by catalog id with the converter built into Stepwise. The CLI and the editor both go through here.
 */

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ladderModelDir } from '../defaults';
import { ModelError } from '../types';
import { LADDER, findLadderModel } from './catalog';
import type { LadderModel } from './catalogTypes';
import { defaultConverter, type GgufConverter } from './converter';
import { installLadderModel, type InstallOptions, type InstallResult } from './installer';
import { installState, type InstallState } from './installRecord';

export interface LadderEntry {
  model: LadderModel;
  dir: string;
  state: InstallState;
  /** Bytes the model's folder takes, when anything is installed. */
  diskBytes?: number;
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** Every model of the ladder with its folder and install state. */
export async function listLadder(
  env: NodeJS.ProcessEnv = process.env,
  converter: GgufConverter | undefined = defaultConverter(),
): Promise<LadderEntry[]> {
  return Promise.all(
    LADDER.map(async (model) => {
      const dir = ladderModelDir(model.id, env);
      const state = await installState(model, dir, converter?.version);
      return { model, dir, state, diskBytes: state === 'absent' ? undefined : await folderBytes(dir) };
    }),
  );
}

/** The catalog entry for an id, or a ModelError that lists the ids there are. */
export function requireLadderModel(id: string): LadderModel {
  const model = findLadderModel(id);
  if (!model) {
    throw new ModelError(
      `There is no model "${id}" in Stepwise's model ladder.`,
      'model-folder',
      `Models: ${LADDER.map((m) => m.id).join(', ')}.`,
    );
  }
  return model;
}

/** Installs a model of the ladder into its folder (or `modelDir`), converting with Stepwise's converter. */
export function installById(
  id: string,
  options: Partial<InstallOptions> & { env?: NodeJS.ProcessEnv } = {},
): Promise<InstallResult> {
  const model = requireLadderModel(id);
  const { env, ...rest } = options;
  return installLadderModel(model, {
    converter: defaultConverter(),
    ...rest,
    modelDir: options.modelDir ?? ladderModelDir(model.id, env),
  });
}
