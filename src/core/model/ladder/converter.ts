/**
 * The GGUF → ONNX conversion step of an install, as the installer sees it: a versioned function.
 * The version goes into the install record, so a folder converted by an older converter is known
 * to need converting again.
 */

export interface GgufConverter {
  /** Changes whenever the converter's output for the same GGUF changes. */
  version: string;
  convert(
    ggufPath: string,
    outDir: string,
    options: { onProgress?: (progress: unknown) => void; signal?: AbortSignal },
  ): Promise<unknown>;
}

/** The share done and a line to show, read from whatever progress object a converter reports. */
export function readConverterProgress(progress: unknown): { fraction?: number; message?: string } {
  const p = (progress ?? {}) as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const done = num(p.done) ?? num(p.tensorsDone) ?? num(p.bytesDone);
  const total = num(p.total) ?? num(p.tensorsTotal) ?? num(p.bytesTotal);
  const fraction = num(p.fraction) ?? (done !== undefined && total ? done / total : undefined);
  const message = [p.stage, p.message, p.tensor].filter((v) => typeof v === 'string' && v).join(': ');
  return { fraction: fraction === undefined ? undefined : Math.min(1, Math.max(0, fraction)), message };
}

/** The converter the editor and the CLI use; undefined while none is built into Stepwise. */
export function defaultConverter(): GgufConverter | undefined {
  return undefined;
}
