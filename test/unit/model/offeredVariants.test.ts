/**
 * The model picker offers only weights that exist and load (issue 42: it offered fp32/q8 variants
 * that ladder models do not have). Checked on the manifests (the download's file names, the GGUF
 * conversion's output) and on real folders: every variant offered loads in the real engine.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeLadderInstall } from '../ladder/installFixture';
import { ladderModelDir } from '../../../src/core/model/defaults';
import { ONNX_VARIANTS } from '../../../src/core/model/download/hubFiles';
import { CONVERTED_MODEL_FILE } from '../../../src/core/model/gguf/convert';
import { TINY_MODEL_ID } from '../../../src/core/model/ladder/catalog';
import { variantDir } from '../../../src/core/model/ladder/variants';
import { LADDER_WEIGHTS, offeredVariants } from '../../../src/core/model/offeredVariants';
import { OnnxEngine } from '../../../src/core/model/onnx/engine';
import { VARIANT_FILES, type OnnxVariant } from '../../../src/core/model/onnx/modelFolder';
import { ModelError } from '../../../src/core/model/types';
import { tinyModelDir } from './tinyModel';

const scratch: string[] = [];
test.after(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A model folder with the tiny model's config and tokenizer and only the weights named. */
function folderWith(dir: string, weights: OnnxVariant[]): string {
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
    copyFileSync(join(tinyModelDir(), f), join(dir, f));
  for (const w of weights) symlinkSync(join(tinyModelDir(), VARIANT_FILES[w]), join(dir, VARIANT_FILES[w]));
  return dir;
}

async function loads(dir: string, weights: OnnxVariant): Promise<void> {
  const engine = await OnnxEngine.load({ modelDir: dir, variant: weights, device: 'cpu', threads: 1 });
  await engine.dispose();
}

test('each weights variant a download offers is saved under the file name the loader opens', () => {
  for (const v of Object.keys(VARIANT_FILES) as OnnxVariant[])
    assert.equal(`onnx/${ONNX_VARIANTS[v]}`, VARIANT_FILES[v], v);
  // A ladder model's folders hold the conversion's one graph, the weights its setting names.
  assert.equal(CONVERTED_MODEL_FILE, VARIANT_FILES[LADDER_WEIGHTS]);
});

test('a model folder is offered only the weights it has, and each of them loads', async () => {
  const dir = folderWith(mkdtempSync(join(tmpdir(), 'stepwise-offered-')), ['q4']);
  scratch.push(dir);
  const offered = await offeredVariants(dir, { XDG_CACHE_HOME: dir });
  assert.deepEqual(
    offered.map((o) => o.weights),
    ['q4'],
    'fp32 and q8 are not offered: their files are not there',
  );
  for (const o of offered) await loads(o.dir, o.weights);
  // What the picker no longer offers would indeed have failed, with a hint naming what is there.
  await assert.rejects(loads(dir, 'fp32'), (e: ModelError) => /has the q4 variant/.test(e.hint ?? ''));

  const all = folderWith(mkdtempSync(join(tmpdir(), 'stepwise-offered-')), ['fp32', 'q8', 'q4']);
  scratch.push(all);
  const three = await offeredVariants(all, { XDG_CACHE_HOME: all });
  assert.deepEqual(
    three.map((o) => o.weights),
    ['fp32', 'q8', 'q4'],
  );
  for (const o of three) await loads(o.dir, o.weights);
});

test("a ladder model is offered its installed exact and fast folders, each loading with the ladder's weights", async () => {
  const cache = mkdtempSync(join(tmpdir(), 'stepwise-offered-ladder-'));
  scratch.push(cache);
  const env = { XDG_CACHE_HOME: cache };
  const exact = ladderModelDir(TINY_MODEL_ID, env);
  const fast = variantDir(exact, 'fast');
  folderWith(exact, [LADDER_WEIGHTS]);
  writeLadderInstall(exact, 'exact');
  // Only the exact folder installed: nothing to choose between.
  assert.deepEqual(await offeredVariants(exact, env), []);
  // A fast folder with an install record but no graph (a conversion that did not finish) is not offered.
  mkdirSync(fast, { recursive: true });
  writeLadderInstall(fast, 'fast');
  assert.deepEqual(await offeredVariants(exact, env), []);
  folderWith(fast, [LADDER_WEIGHTS]);
  const offered = await offeredVariants(fast, env);
  assert.deepEqual(
    offered.map((o) => [o.kind, o.kind === 'ladder' ? o.variant : '', o.dir, o.weights]),
    [
      ['ladder', 'exact', exact, LADDER_WEIGHTS],
      ['ladder', 'fast', fast, LADDER_WEIGHTS],
    ],
  );
  for (const o of offered) await loads(o.dir, o.weights);
});
