/**
 * The GGUF → ONNX conversion step of an install, as the installer sees it: a versioned function.
 * The version goes into the install record, so a folder converted by an older converter is known
 * to need converting again.
 */

import { convertGgufToOnnx, GGUF_CONVERTER_VERSION } from '../gguf/index';
import type { ModelVariant } from './variants';

export interface GgufConverter {
  /** Changes whenever the converter's output for the same GGUF changes. */
  version: string;
  /** Which graph it makes; absent means exact (a converter from before the fast variant). */
  variant?: ModelVariant;
  convert(
    ggufPath: string,
    outDir: string,
    options: { onProgress?: (progress: unknown) => void; signal?: AbortSignal },
  ): Promise<unknown>;
}

/** How much of a conversion each of the converter's stages takes (the layers are the work). */
const STAGE_SPAN: Record<string, [number, number]> = {
  reading: [0, 0.05],
  layers: [0.05, 0.9],
  writing: [0.9, 1],
  done: [1, 1],
};

/**
 * The share of the whole conversion done and a line to show, from the converter's progress
 * (`{ stage, done, total }`); unknown shapes give no fraction rather than a wrong one.
 */
export function readConverterProgress(progress: unknown): { fraction?: number; message?: string } {
  const p = (progress ?? {}) as { stage?: unknown; done?: unknown; total?: unknown };
  const stage = typeof p.stage === 'string' ? p.stage : undefined;
  const done = typeof p.done === 'number' ? p.done : undefined;
  const total = typeof p.total === 'number' && p.total > 0 ? p.total : undefined;
  const span = stage ? STAGE_SPAN[stage] : undefined;
  const within = done !== undefined && total ? Math.min(1, Math.max(0, done / total)) : 0;
  const fraction = span ? span[0] + (span[1] - span[0]) * within : undefined;
  const message =
    stage === 'layers' && done !== undefined && total
      ? `converting layer ${done} of ${total} to ONNX`
      : stage === 'reading'
        ? 'reading the GGUF'
        : stage === 'writing'
          ? 'writing the ONNX graph'
          : stage;
  return { fraction, message };
}

/**
 * The converter the editor and the CLI use: Stepwise's own GGUF → ONNX converter, which carries the
 * quantized blocks over exactly into the engine's q4 graph. Typed as optional so that a caller (a
 * test, a GGUF-only install) can still pass none.
 */
export function defaultConverter(): GgufConverter | undefined {
  return {
    version: GGUF_CONVERTER_VERSION,
    variant: 'exact',
    convert: (ggufPath, outDir, options) => convertGgufToOnnx(ggufPath, outDir, options),
  };
}

/**
 * The converter of a variant: the exact one above, or the same converter re-quantizing to 4-bit
 * blocks (its version differs, so an exact folder is never taken for a fast one or back).
 */
export function converterFor(variant: ModelVariant): GgufConverter | undefined {
  if (variant === 'exact') return defaultConverter();
  return {
    version: `${GGUF_CONVERTER_VERSION}+fast`,
    variant: 'fast',
    convert: (ggufPath, outDir, options) =>
      convertGgufToOnnx(ggufPath, outDir, { ...options, variant: 'fast' }),
  };
}
