/**
 * The weights a model picker may offer for the model in use: only what is on disk and loads. A
 * ladder model comes as its exact and fast folders (each holding the one q4 graph the GGUF
 * conversion writes); any other folder as the fp32 / q8 / q4 files it actually has. A variant whose
 * file is missing would fail at load time, so it is never offered.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_VARIANT } from './defaults';
import { listLadder } from './ladder/local';
import type { ModelVariant } from './ladder/variants';
import { VARIANT_FILES, type OnnxVariant } from './onnx/modelFolder';

export type OfferedVariant =
  /** A ladder model's folder: using it sets the folder and its weights (`weights`). */
  | { kind: 'ladder'; modelName: string; variant: ModelVariant; dir: string; weights: OnnxVariant }
  /** A weights file of the folder in use: using it sets only the weights. */
  | { kind: 'weights'; dir: string; weights: OnnxVariant };

/** The weights the ladder's folders hold, and so the variant setting that loads them. */
export const LADDER_WEIGHTS: OnnxVariant = DEFAULT_VARIANT;

/** Weights files of `dir` that exist, in fp32, q8, q4 order. */
export function weightsIn(dir: string): OnnxVariant[] {
  return (Object.keys(VARIANT_FILES) as OnnxVariant[]).filter((v) => existsSync(join(dir, VARIANT_FILES[v])));
}

/**
 * What to offer for the local model folder `inUse`: the installed variants of its ladder model
 * (none unless two are installed: nothing to choose), else its own weights files.
 */
export async function offeredVariants(
  inUse: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OfferedVariant[]> {
  const at = resolve(inUse);
  const entry = (await listLadder(env)).find((e) => e.variants.some((v) => resolve(v.dir) === at));
  if (entry) {
    const installed = entry.variants.filter(
      (v) => v.state === 'installed' && weightsIn(v.dir).includes(LADDER_WEIGHTS),
    );
    if (installed.length < 2) return [];
    return installed.map((v) => ({
      kind: 'ladder',
      modelName: entry.model.displayName,
      variant: v.variant,
      dir: v.dir,
      weights: LADDER_WEIGHTS,
    }));
  }
  return weightsIn(at).map((weights) => ({ kind: 'weights', dir: at, weights }));
}
