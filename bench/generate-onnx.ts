/**
 * The ONNX side of bench/generate.ts, run as a child process per measurement so that its peak RSS
 * is its own:
 *   node out/bench/generate-onnx.js convert GGUF OUT_DIR [exact|fast]
 *   node out/bench/generate-onnx.js speed MODEL_DIR REQUEST.json
 *   node out/bench/generate-onnx.js agree MODEL_DIR REQUEST.json
 *   node out/bench/generate-onnx.js perplexity MODEL_DIR REQUEST.json   ({"ids": [...], "threads": n})
 * Prints one JSON object on stdout.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertGgufToOnnx } from '../src/core/model/gguf/index';
import { OnnxEngine } from '../src/core/model/onnx/engine';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;

interface SpeedRequest {
  prompt_ids: number[];
  long_ids: number[];
  new_tokens: number;
  threads: number;
  repeats: number;
}

interface AgreeRequest {
  prompts: number[][];
  new_tokens: number;
  threads: number;
  /** llama.cpp's greedy continuations, and where its logits over them lie (one .f32 file per prompt). */
  reference: { continuations: number[][]; logits_dir: string; vocab: number };
}

async function speed(modelDir: string, request: SpeedRequest) {
  const started = performance.now();
  const engine = await OnnxEngine.load({
    modelDir,
    variant: 'q4',
    device: 'cpu',
    threads: request.threads,
    // Every prompt runs whole, as llama.cpp's after its reset: the same prompt is timed again and again.
    prefixCache: false,
  });
  const loadS = (performance.now() - started) / 1000;
  const decode = () =>
    engine.generateBatch([request.prompt_ids], {
      maxTokens: request.new_tokens,
      minTokens: request.new_tokens,
      temperature: 0,
      repetition: { noRepeatNgram: 0 },
      // Plain decode, token by token as llama.cpp's; bench:lookahead measures the guesses' gain.
      lookahead: false,
    });
  const firstToken = () => engine.generateBatch([request.long_ids], { maxTokens: 1, temperature: 0 });
  await decode(); // warm-up: first-run allocations and kernel choices
  await firstToken();
  const rates: number[] = [];
  const ttft: number[] = [];
  for (let i = 0; i < request.repeats; i++) {
    const r = await decode();
    const tokens = r.completions[0].tokens.length;
    rates.push((tokens - 1) / ((r.totalMs - r.timeToFirstTokenMs) / 1000));
    ttft.push((await firstToken()).timeToFirstTokenMs);
  }
  await engine.dispose();
  return {
    load_s: loadS,
    ttft_ms: median(ttft),
    decode_tokens_per_s: median(rates),
    runs: request.repeats,
    peak_rss_mib: peakRssMiB(),
  };
}

const argmax = (row: Float32Array) => {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
};

async function agree(modelDir: string, request: AgreeRequest) {
  const engine = await OnnxEngine.load({
    modelDir,
    variant: 'q4',
    device: 'cpu',
    threads: request.threads,
    // Every prompt runs whole, as llama.cpp's after its reset: the same prompt is timed again and again.
    prefixCache: false,
  });
  let samePositions = 0;
  let positions = 0;
  let forcedAgree = 0;
  let forcedPositions = 0;
  let maxDiff = 0;
  let sumDiff = 0;
  let diffCount = 0;
  const perPrompt: {
    first_divergence: number | null;
    /** At the first divergence, llama.cpp's own logit of its token minus its logit of ONNX's token. */
    llamacpp_margin_at_divergence: number | null;
    tokens_onnx: number;
    tokens_llamacpp: number;
  }[] = [];
  for (const [i, prompt] of request.prompts.entries()) {
    const reference = request.reference.continuations[i];
    const completion = (
      await engine.generateBatch([prompt], {
        maxTokens: request.new_tokens,
        temperature: 0,
        repetition: { noRepeatNgram: 0 },
        // Token by token as llama.cpp decodes: a two-token lookahead pass rounds int8 activations
        // differently, and near ties then part where plain decoding would not.
        lookahead: false,
      })
    ).completions[0];
    const own = completion.tokens.map((t) => t.id!);
    // llama.cpp's continuation ends with its EOS token; ours reports the EOS as a finish reason.
    const endedAt = completion.finishReason === 'eos' ? own.length : -1;
    const length = Math.max(own.length + (endedAt >= 0 ? 1 : 0), reference.length);
    let firstDivergence: number | null = null;
    for (let j = 0; j < length; j++) {
      const same = j === endedAt ? engine.codec.eosTokenIds.has(reference[j]) : own[j] === reference[j];
      if (same) samePositions++;
      else firstDivergence ??= j;
    }
    positions += length;
    const theirs = readFileSync(join(request.reference.logits_dir, `${i}.f32`));
    const theirLogits = new Float32Array(theirs.buffer, theirs.byteOffset, theirs.length / 4);
    const width = request.reference.vocab;
    // Up to the first divergence both engines saw the same tokens, so llama.cpp's logits there say
    // how close its own choice was: a margin below the logit differences is a near-tie.
    const margin =
      firstDivergence !== null && firstDivergence < reference.length && firstDivergence < own.length
        ? theirLogits[firstDivergence * width + reference[firstDivergence]] -
          theirLogits[firstDivergence * width + own[firstDivergence]]
        : null;
    perPrompt.push({
      first_divergence: firstDivergence,
      llamacpp_margin_at_divergence: margin === null ? null : Math.round(margin * 1000) / 1000,
      tokens_onnx: own.length,
      tokens_llamacpp: reference.length,
    });

    // Teacher forcing: our next-token choice after each prefix of llama.cpp's continuation.
    const { rows, vocab } = await engine.fullLogits([...prompt, ...reference]);
    for (let j = 0; j < reference.length; j++) {
      const row = rows[prompt.length - 1 + j];
      if (argmax(row) === reference[j]) forcedAgree++;
      forcedPositions++;
      const ref = theirLogits.subarray(j * width, (j + 1) * width);
      for (let v = 0; v < Math.min(vocab, width); v++) {
        const d = Math.abs(row[v] - ref[v]);
        if (d > maxDiff) maxDiff = d;
        sumDiff += d;
        diffCount++;
      }
    }
  }
  await engine.dispose();
  return {
    token_agreement: samePositions / positions,
    teacher_forced_top1: forcedAgree / forcedPositions,
    max_logit_diff: maxDiff,
    mean_logit_diff: sumDiff / diffCount,
    positions,
    per_prompt: perPrompt,
    peak_rss_mib: peakRssMiB(),
  };
}

/** Perplexity of a text's tokens after the first, from one forward pass over all of them. */
async function perplexity(modelDir: string, request: { ids: number[]; threads: number }) {
  const engine = await OnnxEngine.load({ modelDir, variant: 'q4', device: 'cpu', threads: request.threads });
  const { rows } = await engine.fullLogits(request.ids);
  await engine.dispose();
  let nll = 0;
  for (let i = 1; i < request.ids.length; i++) {
    const row = rows[i - 1];
    let max = -Infinity;
    for (const v of row) max = Math.max(max, v);
    let sum = 0;
    for (const v of row) sum += Math.exp(v - max);
    nll -= row[request.ids[i]] - max - Math.log(sum);
  }
  return { perplexity: Math.exp(nll / (request.ids.length - 1)), tokens: request.ids.length };
}

async function main(): Promise<void> {
  const [mode, a, b, c] = process.argv.slice(2);
  let result: unknown;
  if (mode === 'convert') {
    const report = await convertGgufToOnnx(a, b, { variant: c === 'fast' ? 'fast' : 'exact' });
    result = { ...report, peak_rss_mib: peakRssMiB() };
  } else if (mode === 'speed') result = await speed(a, JSON.parse(readFileSync(b, 'utf8')) as SpeedRequest);
  else if (mode === 'agree') result = await agree(a, JSON.parse(readFileSync(b, 'utf8')) as AgreeRequest);
  else if (mode === 'perplexity')
    result = await perplexity(a, JSON.parse(readFileSync(b, 'utf8')) as { ids: number[]; threads: number });
  else throw new Error(`unknown mode ${mode}`);
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
