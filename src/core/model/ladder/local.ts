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
import { converterFor, defaultConverter, type GgufConverter } from './converter';
import { installLadderModel, type InstallOptions, type InstallResult } from './installer';
import { installState, type InstallState } from './installRecord';
import { MODEL_VARIANTS, variantDir, type ModelVariant } from './variants';

export interface LadderEntry {
  model: LadderModel;
  /** The exact variant's folder and state (the model as the ladder has always installed it). */
  dir: string;
  state: InstallState;
  /** Bytes the model's folder takes, when anything is installed. */
  diskBytes?: number;
  /** Each variant's folder and state; the exact one repeats `dir` and `state`. */
  variants: { variant: ModelVariant; dir: string; state: InstallState }[];
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
      const variants = await Promise.all(
        MODEL_VARIANTS.map(async (variant) => {
          const at = variantDir(dir, variant);
          if (variant === 'exact') return { variant, dir: at, state };
          return { variant, dir: at, state: await installState(model, at, converterFor(variant)?.version) };
        }),
      );
      return {
        model,
        dir,
        state,
        diskBytes: state === 'absent' ? undefined : await folderBytes(dir),
        variants,
      };
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

/**
 * Installs a model of the ladder into its folder (or `modelDir`), converting with Stepwise's
 * converter. The fast variant goes into the `-fast` folder beside the exact one and reuses the
 * exact folder's verified GGUF when there is one.
 */
export function installById(
  id: string,
  options: Partial<InstallOptions> & { env?: NodeJS.ProcessEnv; variant?: ModelVariant } = {},
): Promise<InstallResult> {
  const model = requireLadderModel(id);
  const { env, variant = 'exact', ...rest } = options;
  const exactDir = ladderModelDir(model.id, env);
  return installLadderModel(model, {
    converter: converterFor(variant),
    ggufFrom: variant === 'exact' ? undefined : exactDir,
    ...rest,
    modelDir: options.modelDir ?? variantDir(exactDir, variant),
  });
}
