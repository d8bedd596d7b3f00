/** A model folder as a ladder install leaves it, for tests of what the ladder and the picker read. */
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TINY_MODEL_ID, findLadderModel } from '../../../src/core/model/ladder/catalog';
import { converterFor } from '../../../src/core/model/ladder/converter';
import { ggufPathIn, type InstallRecord } from '../../../src/core/model/ladder/installRecord';
import type { ModelVariant } from '../../../src/core/model/ladder/variants';

/**
 * Writes the tiny model's install record and its GGUF (sparse, of the pinned size) into `dir`.
 * `converterVersion` defaults to the current converter's, so the install counts as up to date.
 */
export function writeLadderInstall(
  dir: string,
  variant: ModelVariant,
  converterVersion = converterFor(variant)!.version,
): void {
  const model = findLadderModel(TINY_MODEL_ID)!;
  const gguf = ggufPathIn(dir, model);
  mkdirSync(join(dir, 'gguf'), { recursive: true });
  writeFileSync(gguf, '');
  truncateSync(gguf, model.gguf.size);
  const record: InstallRecord = {
    schema: 1,
    id: model.id,
    displayName: model.displayName,
    installedAt: new Date().toISOString(),
    gguf: { ...model.gguf, path: `gguf/${model.gguf.fileName}` },
    parts: [],
    conversion: { converterVersion, variant, report: null },
  };
  writeFileSync(join(dir, 'stepwise-install.json'), JSON.stringify(record));
}
