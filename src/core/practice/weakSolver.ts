import * as fs from 'node:fs';
import type { ModelBackend } from '../model/types';

/**
 * Runs `work` with the weak-model regime's solver: a smaller model or an earlier checkpoint that
 * answers beside the strong regimes, so the judge's separation R_sep is measured against a solver
 * that is weaker in fact, not only hotter. No folder named: `work` runs without it (the loop keeps
 * its high-temperature weak regime). A named folder that is missing is an error before anything
 * loads, never a silent fallback, and the weak model is disposed however `work` ends. The CLI's
 * `--weak-model-dir` and the editor's `stepwise.practice.weakModelPath` both come here.
 */
export async function withWeakSolver<T>(
  modelDir: string | undefined,
  open: (dir: string) => Promise<ModelBackend>,
  work: (weak: ModelBackend | undefined) => Promise<T>,
  named = 'The weak model folder',
): Promise<T> {
  const dir = modelDir?.trim();
  if (!dir) return work(undefined);
  if (!fs.existsSync(dir))
    throw new Error(`${named} ${dir} does not exist: name an ONNX model folder, or leave it empty.`);
  const weak = await open(dir);
  try {
    return await work(weak);
  } finally {
    await weak.dispose();
  }
}
