/**
 * The ladder's view of a model's two variants, on real folders under a scratch cache: what
 * `stepwise models list` and the model picker are built from.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeLadderInstall } from './installFixture';
import { ladderModelDir } from '../../../src/core/model/defaults';
import { TINY_MODEL_ID, findLadderModel } from '../../../src/core/model/ladder/catalog';
import { installedNameIn } from '../../../src/core/model/ladder/installRecord';
import { converterFor } from '../../../src/core/model/ladder/converter';
import { listLadder } from '../../../src/core/model/ladder/local';
import { variantDir } from '../../../src/core/model/ladder/variants';

test('the ladder lists each variant with its own folder and state; the fast one only once converted', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'stepwise-variants-'));
  const env = { XDG_CACHE_HOME: cache };
  try {
    const exactDir = ladderModelDir(TINY_MODEL_ID, env);
    writeLadderInstall(exactDir, 'exact', converterFor('exact')!.version);
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
    writeLadderInstall(variantDir(exactDir, 'fast'), 'fast', 'old+fast');
    entry = await tiny();
    assert.equal(entry.variants[1].state, 'needs-conversion');
    writeLadderInstall(variantDir(exactDir, 'fast'), 'fast', converterFor('fast')!.version);
    entry = await tiny();
    assert.equal(entry.variants[1].state, 'installed');
    assert.equal(entry.state, 'installed', 'the exact folder is unaffected');
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test('a fast folder goes by "<model> (fast)", also when its record predates that name', () => {
  const cache = mkdtempSync(join(tmpdir(), 'stepwise-variants-'));
  try {
    const exactDir = ladderModelDir(TINY_MODEL_ID, { XDG_CACHE_HOME: cache });
    const fastDir = variantDir(exactDir, 'fast');
    const name = findLadderModel(TINY_MODEL_ID)!.displayName;
    // The fixture writes the bare display name, as installs before the "(fast)" name did.
    writeLadderInstall(exactDir, 'exact');
    writeLadderInstall(fastDir, 'fast');
    assert.equal(installedNameIn(exactDir), name);
    assert.equal(installedNameIn(fastDir), `${name} (fast)`);
    // Evaluation journals are keyed by this name: the two variants must never share one.
    assert.notEqual(installedNameIn(fastDir), installedNameIn(exactDir));
    const record = JSON.parse(readFileSync(join(fastDir, 'stepwise-install.json'), 'utf8'));
    writeFileSync(
      join(fastDir, 'stepwise-install.json'),
      JSON.stringify({ ...record, displayName: `${name} (fast)` }),
    );
    assert.equal(installedNameIn(fastDir), `${name} (fast)`, 'said once, not twice');
    assert.equal(installedNameIn(join(cache, 'no-such-folder')), undefined);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});
