import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { expandBlocks } from '../../../src/core/model/gguf/blockCodecs';
import { fastBlocks, ggmlWeights } from '../../../src/core/model/gguf/fastVariant';
import { GraphBuilder } from '../../../src/core/model/gguf/graphBuilder';
import { LinearEmitter } from '../../../src/core/model/gguf/linearLayer';
import { DataType } from '../../../src/core/model/gguf/onnxProto';
import {
  quantizeFourBit,
  quantizeFourBitMinMax,
  reconstructionError,
  type FourBitForm,
} from '../../../src/core/model/gguf/requantize';
import { randomBlocks, seededRandom } from './ggufFixtures';

const FORMS: FourBitForm[] = [32, 64, 128].flatMap((blockSize) =>
  [false, true].map((zeroPoints) => ({ blockSize: blockSize as 32 | 64 | 128, zeroPoints })),
);

/** Normally distributed weights (what trained matrices look like), with a few outliers. */
function gaussianWeights(n: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  return Float32Array.from({ length: n }, (_, i) => {
    const g = Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
    return (i % 97 === 0 ? 4 : 1) * 0.02 * g;
  });
}

const relativeRms = (w: Float32Array, approx: Float32Array) => {
  const { squaredError, squaredWeight } = reconstructionError(w, approx);
  return Math.sqrt(squaredError / squaredWeight);
};

test('the scale search never loses to min/max rounding, on every form and source type', () => {
  const sources: [string, Float32Array][] = [
    ['gaussian', gaussianWeights(16 * 256, 1)],
    ['Q6_K', ggmlWeights('Q6_K', randomBlocks('Q6_K', 16, 256, 2), 16, 256)],
    ['Q5_0', ggmlWeights('Q5_0', randomBlocks('Q5_0', 16, 256, 3), 16, 256)],
  ];
  for (const [name, w] of sources)
    for (const form of FORMS) {
      const searched = relativeRms(w, expandBlocks(quantizeFourBit(w, 16, 256, form)));
      const plain = relativeRms(w, expandBlocks(quantizeFourBitMinMax(w, 16, 256, form)));
      assert.ok(searched <= plain, `${name} ${JSON.stringify(form)}: ${searched} > ${plain}`);
    }
});

test('4-bit blocks keep gaussian weights within the error 16 levels allow', () => {
  const w = gaussianWeights(64 * 512, 7);
  const error = (form: FourBitForm) => relativeRms(w, expandBlocks(quantizeFourBit(w, 64, 512, form)));
  // 16 uniform levels over a block of 32 normal values: about 8–9 % of the weights' RMS.
  assert.ok(
    error({ blockSize: 32, zeroPoints: true }) < 0.1,
    `${error({ blockSize: 32, zeroPoints: true })}`,
  );
  assert.ok(error({ blockSize: 32, zeroPoints: false }) < 0.11);
  // Larger blocks share one scale among more weights: their error is larger, never smaller.
  assert.ok(error({ blockSize: 128, zeroPoints: true }) > error({ blockSize: 32, zeroPoints: true }));
});

test('weights that already are 4-bit symmetric blocks come back exactly', () => {
  const random = seededRandom(11);
  const w = new Float32Array(8 * 64);
  for (let b = 0; b < w.length / 32; b++) {
    const d = 0.001 + random() * 0.01;
    for (let i = 0; i < 32; i++) w[32 * b + i] = Math.fround(d * (Math.floor(random() * 16) - 8));
    w[32 * b] = Math.fround(d * -8); // each block uses its whole range
  }
  const back = expandBlocks(quantizeFourBit(w, 8, 64, { blockSize: 32, zeroPoints: false }));
  assert.ok(relativeRms(w, back) < 1e-6, `${relativeRms(w, back)}`);
});

test('a block of zeros stays zeros, with finite scales', () => {
  const w = new Float32Array(2 * 64);
  w.fill(0.5, 64); // the second row is constant
  for (const form of FORMS.filter((f) => f.blockSize <= 64)) {
    const q = quantizeFourBit(w, 2, 64, form);
    assert.ok(q.scales.every(Number.isFinite));
    const back = expandBlocks(q);
    assert.ok(back.subarray(0, 64).every((v) => v === 0));
    assert.ok(
      back.subarray(64).every((v) => Math.abs(v - 0.5) < 1e-6),
      JSON.stringify(form),
    );
  }
});

test('the fast variant re-quantizes 5/6-bit and Q4_1 tensors, and carries the others', () => {
  assert.equal(fastBlocks('Q6_K', randomBlocks('Q6_K', 4, 256, 1), 4, 256)?.bits, 4);
  assert.equal(fastBlocks('Q5_0', randomBlocks('Q5_0', 4, 64, 1), 4, 64)?.bits, 4);
  const q41 = fastBlocks('Q4_1', randomBlocks('Q4_1', 4, 64, 1), 4, 64);
  assert.equal(q41?.offsets, undefined, 'Q4_1 loses its float offsets, and with them the second matmul');
  assert.equal(fastBlocks('Q4_K', randomBlocks('Q4_K', 4, 256, 1), 4, 256), undefined);
  assert.equal(fastBlocks('Q8_0', randomBlocks('Q8_0', 4, 64, 1), 4, 64), undefined);
});

/** x·Ŵᵀ from onnxruntime's MatMulNBits on re-quantized blocks, against the same product in plain floats. */
async function matMulError(form: FourBitForm): Promise<number> {
  const rows = 24;
  const cols = 256;
  const q = quantizeFourBit(gaussianWeights(rows * cols, 5), rows, cols, form);
  const weights = expandBlocks(q);
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-requantize-'));
  try {
    const g = new GraphBuilder(join(dir, 'model.onnx_data'));
    const x = g.input('x', DataType.FLOAT, [1, 1, cols]);
    const y = new LinearEmitter(g, 0).emit(x, { kind: 'blocks', blocks: q }, 'w');
    g.op('Identity', [y], { outputs: ['y'] });
    g.output('y', DataType.FLOAT, [1, 1, rows]);
    writeFileSync(join(dir, 'model.onnx'), g.finish('linear', {}));
    const session = await ort.InferenceSession.create(join(dir, 'model.onnx'));
    const random = seededRandom(9);
    const input = Float32Array.from({ length: cols }, () => random() * 2 - 1);
    const out = (await session.run({ x: new ort.Tensor('float32', input, [1, 1, cols]) })).y
      .data as Float32Array;
    await session.release();
    let diff = 0;
    let scale = 0;
    for (let n = 0; n < rows; n++) {
      let s = 0;
      for (let k = 0; k < cols; k++) s += input[k] * weights[n * cols + k];
      diff = Math.max(diff, Math.abs(out[n] - s));
      scale = Math.max(scale, Math.abs(s));
    }
    return diff / scale;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const form of FORMS) {
  test(`MatMulNBits reads re-quantized blocks of ${form.blockSize}${form.zeroPoints ? ' with zero points' : ''} as the weights they expand to`, async () => {
    assert.ok((await matMulError(form)) < 1e-5);
  });
}
