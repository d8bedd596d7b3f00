import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { Tokenizer } from '@huggingface/tokenizers';
import { openModelFolder } from '../../../src/core/model/onnx/modelFolder';
import { TextCodec } from '../../../src/core/model/onnx/textCodec';
import { loadCompactTokenizer } from '../../../src/core/model/onnx/tokenizerTables';
import { tinyModelDir } from './tinyModel';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const readJsonFile = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/** Prose, code, digits, unicode and special tokens: the kinds of text a stage conversation holds. */
const TEXTS = [
  readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'),
  readFileSync(join(ROOT, 'src', 'core', 'model', 'onnx', 'kvCache.ts'), 'utf8'),
  'Let $x^2 + 2x = 15$; then (x+5)(x−3) = 0, so x ∈ {−5, 3}. 12345678 ÷ 9 ≈ 1371742 🙂',
  '<|im_start|>user\ndef f(a, b):\n\treturn a  +  b<|im_end|>',
];

test('the compact tokenizer encodes and decodes every text as the library does from the same file', () => {
  const dir = tinyModelDir();
  const config = readJsonFile(join(dir, 'tokenizer_config.json'));
  const plain = new Tokenizer(readJsonFile(join(dir, 'tokenizer.json')), config);
  const compact = loadCompactTokenizer(readJsonFile(join(dir, 'tokenizer.json')), config);
  for (const text of TEXTS) {
    for (const add_special_tokens of [true, false]) {
      const ids = plain.encode(text, { add_special_tokens }).ids;
      assert.deepEqual(compact.encode(text, { add_special_tokens }).ids, ids);
      assert.equal(
        compact.decode(ids, { skip_special_tokens: true }),
        plain.decode(ids, { skip_special_tokens: true }),
      );
    }
  }
  assert.equal(compact.token_to_id('<|im_end|>'), plain.token_to_id('<|im_end|>'));
});

test('the compact tokenizer keeps no copy of the vocabulary or merges it was built from', () => {
  const dir = tinyModelDir();
  const json = readJsonFile(join(dir, 'tokenizer.json'));
  const model = json.model as Record<string, unknown>;
  assert.ok(model.vocab && model.merges, 'the fixture is a BPE tokenizer.json with vocab and merges');
  const tokenizer = loadCompactTokenizer(json, readJsonFile(join(dir, 'tokenizer_config.json')));
  assert.equal(model.vocab, undefined);
  assert.equal(model.merges, undefined);
  const built = (tokenizer as unknown as { model: Record<string, unknown> }).model;
  assert.equal(built.merges, undefined);
  assert.ok(built.bpe_ranks instanceof Map && built.bpe_ranks.size > 0, 'the rank map stays');
});

test('a model folder hands its tokenizer to the codec unparsed, and the codec encodes with it', () => {
  const folder = openModelFolder(tinyModelDir(), 'fp32');
  assert.equal(typeof folder.tokenizerFile, 'string');
  const codec = new TextCodec(folder);
  const ids = codec.encodeContinuation(TEXTS[2]);
  assert.ok(ids.length > 10);
  assert.equal(codec.decode(ids), TEXTS[2]);
});
