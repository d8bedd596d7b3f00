/**
 * The two conversions of a ladder model: the exact graph (every GGUF block carried over as it is)
 * and the fast one (5/6-bit and offset-carrying tensors re-quantized to 4-bit blocks, see
 * src/core/model/gguf/fastVariant.ts). Each lives in its own folder with its own install record,
 * so either can be loaded, removed or re-converted without touching the other; the fast folder
 * sits beside the exact one with a `-fast` suffix and links the same verified GGUF.
 */

export type ModelVariant = 'exact' | 'fast';

export const MODEL_VARIANTS: readonly ModelVariant[] = ['exact', 'fast'];

/** The exact graph stays the default until the fast one is shown to hold task quality. */
export const DEFAULT_MODEL_VARIANT: ModelVariant = 'exact';

const FAST_SUFFIX = '-fast';

/** The folder of `variant` for a model whose exact folder is `exactDir`. */
export function variantDir(exactDir: string, variant: ModelVariant): string {
  const trimmed = exactDir.replace(/[\\/]+$/, '');
  return variant === 'fast' ? `${trimmed}${FAST_SUFFIX}` : trimmed;
}

export function isModelVariant(value: string): value is ModelVariant {
  return (MODEL_VARIANTS as readonly string[]).includes(value);
}
