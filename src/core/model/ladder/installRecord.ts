/**
 * The install record: a JSON file written last into a model folder, saying which catalog entry it
 * was built from, the hashes that were checked, and which converter made the ONNX graphs. A folder
 * without it is not an installed ladder model.
 */

import { existsSync, readFileSync } from 'node:fs';
import { rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AssembledGguf, LadderModel } from './catalogTypes';
import type { ModelVariant } from './variants';

export const INSTALL_RECORD_FILE = 'stepwise-install.json';

export interface InstallRecord {
  schema: 1;
  id: string;
  displayName: string;
  installedAt: string;
  /** The GGUF kept in the folder, relative path included, with the hash it was checked against. */
  gguf: AssembledGguf & { path: string };
  /** The archives the GGUF is assembled from. */
  parts: { package: string; version: string; sha256: string }[];
  /**
   * The conversion to ONNX; null while no converter has run. `variant` is absent in records
   * written before the fast variant existed, which were all exact.
   */
  conversion: { converterVersion: string; variant?: ModelVariant; report: unknown } | null;
}

/** Where the GGUF lives inside a model folder. */
export function ggufPathIn(modelDir: string, model: LadderModel): string {
  return join(modelDir, 'gguf', model.gguf.fileName);
}

export function readInstallRecord(modelDir: string): InstallRecord | undefined {
  const file = join(modelDir, INSTALL_RECORD_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as InstallRecord;
    return record?.schema === 1 && typeof record.id === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Which variant a folder's record says it holds (exact for records from before the fast variant). */
export function recordedVariant(record: InstallRecord): ModelVariant {
  return record.conversion?.variant ?? 'exact';
}

/**
 * The name an installed folder goes by: its display name, saying "(fast)" for a fast folder even
 * when its record was written before the installer put that in the name. Results and journals
 * record this name, so the two variants of one model are never taken for one another.
 */
export function installedName(record: InstallRecord): string {
  const fast = recordedVariant(record) === 'fast' && !/\(fast\)$/.test(record.displayName);
  return fast ? `${record.displayName} (fast)` : record.displayName;
}

/** The installed name of the ladder model in `modelDir`; undefined for a folder without a record. */
export function installedNameIn(modelDir: string): string | undefined {
  const record = readInstallRecord(modelDir);
  return record && installedName(record);
}

export async function writeInstallRecord(modelDir: string, record: InstallRecord): Promise<void> {
  const file = join(modelDir, INSTALL_RECORD_FILE);
  await writeFile(`${file}.tmp`, JSON.stringify(record, null, 2) + '\n');
  await rename(`${file}.tmp`, file);
}

export type InstallState =
  /** Converted by the current converter from the pinned GGUF: ready to load. */
  | 'installed'
  /** The verified GGUF is there but its ONNX conversion is missing or from another converter. */
  | 'needs-conversion'
  | 'absent';

/**
 * What a folder holds of a model, from its record and a size check of the GGUF (cheap enough to
 * call for a picker; the installer re-hashes before it reuses anything).
 */
export async function installState(
  model: LadderModel,
  modelDir: string,
  converterVersion: string | undefined,
): Promise<InstallState> {
  const record = readInstallRecord(modelDir);
  if (!record || record.id !== model.id || record.gguf.sha256 !== model.gguf.sha256) return 'absent';
  const size = await stat(ggufPathIn(modelDir, model)).then(
    (s) => s.size,
    () => -1,
  );
  if (size !== model.gguf.size) return 'absent';
  if (converterVersion === undefined) return record.conversion ? 'installed' : 'needs-conversion';
  return record.conversion?.converterVersion === converterVersion ? 'installed' : 'needs-conversion';
}
