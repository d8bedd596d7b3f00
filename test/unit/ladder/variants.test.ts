/**
 * The ladder's view of a model's two variants, on real folders under a scratch cache: what
 * `stepwise models list` and the model picker are built from.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ladderModelDir } from '../../../src/core/model/defaults';
import { TINY_MODEL_ID, findLadderModel } from '../../../src/core/model/ladder/catalog';
import { converterFor } from '../../../src/core/model/ladder/converter';
import { ggufPathIn, type InstallRecord } from '../../../src/core/model/ladder/installRecord';
import { listLadder } from '../../../src/core/model/ladder/local';
import { variantDir, type ModelVariant } from '../../../src/core/model/ladder/variants';

/** A folder as an install leaves it: the GGUF (sparse, of the pinned size) and the record. */
function fakeInstall(dir: string, variant: ModelVariant, converterVersion: string): void {
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

test('the ladder lists each variant with its own folder and state; the fast one only once converted', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'stepwise-variants-'));
  const env = { XDG_CACHE_HOME: cache };
  try {
    const exactDir = ladderModelDir(TINY_MODEL_ID, env);
    fakeInstall(exactDir, 'exact', converterFor('exact')!.version);
    const tiny = async () => (await listLadder(env)).find((e) => e.model.id === TINY_MODEL_ID)!;
    let entry = await tiny();
    assert.equal(entry.state, 'installed');
    assert.deepEqual(
      entry.variants.map((v) => [v.variant, v.dir, v.state]),
      [
        ['exact', exactDir, 'installed'],
        ['fast', `${exactDir}-fast`, 'absent'],
      ],
    );
    // A fast folder from an older converter needs converting again; the current one is installed.
    fakeInstall(variantDir(exactDir, 'fast'), 'fast', 'old+fast');
    entry = await tiny();
    assert.equal(entry.variants[1].state, 'needs-conversion');
    fakeInstall(variantDir(exactDir, 'fast'), 'fast', converterFor('fast')!.version);
    entry = await tiny();
    assert.equal(entry.variants[1].state, 'installed');
    assert.equal(entry.state, 'installed', 'the exact folder is unaffected');
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});
