/**
 * Benchmark of batched plans: Prove's generator plan (a solution of up to 256 tokens, a boxed
 * final answer, a self-evaluation of up to 64 tokens and the score choice) for n = 1, 2 and 4
 * candidates, with the rows decoded together in batched passes and one after another, on the
 * embedded engine in this process. Writes bench/results/plan-batch.json.
 *
 *   npx tsc -p tsconfig.json && node out/bench/plan-batch.js [--model-dir DIR] [--variant q4|q8|fp32]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_VARIANT, defaultModelDir } from '../src/core/model/defaults';
import { OnnxEngine } from '../src/core/model/onnx/engine';
import { generatorPlan } from '../src/core/prove/generate';
import { loadPrompt, renderPrompt } from '../src/core/prove/prompts';
import { findPackageRoot } from '../src/core/resources';
import { benchMachine, portablePath } from './machine';

const PROBLEMS = [
  'What is the sum of the first 100 positive integers?',
  'Find the remainder when $2^{10}$ is divided by 7.',
  'How many positive divisors does 36 have?',
];

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'model-dir': { type: 'string' }, variant: { type: 'string' } } });
  const modelDir = values['model-dir'] ?? defaultModelDir();
  const variant = (values.variant ?? DEFAULT_VARIANT) as 'fp32' | 'q8' | 'q4';
  const engine = await OnnxEngine.load({
    modelDir,
    variant,
    device: 'cpu',
    threads: os.cpus().length,
    // Both arms run the whole prompt: a repeat must not start from the last one's cache.
    prefixCache: false,
  });
  const plan = generatorPlan(256, 64, true);
  const runs: { n: number; batched: boolean; problem: number; tokens: number; ms: number }[] = [];
  try {
    for (const [problem, text] of PROBLEMS.entries()) {
      const input = [
        { role: 'user' as const, content: renderPrompt(loadPrompt('generator'), { problem: text }) },
      ];
      for (const n of [1, 2, 4])
        for (const batched of n === 1 ? [true] : [true, false]) {
          const r = await engine.generatePlan(input, plan, {
            n,
            temperature: 0.8,
            seed: 1,
            batchRows: batched,
          });
          const tokens = r.completions.reduce((s, c) => s + c.tokenCount, 0);
          runs.push({ n, batched, problem, tokens, ms: r.totalMs });
          process.stderr.write(
            `problem ${problem} n=${n} ${batched ? 'batched' : 'one by one'}: ${tokens} tokens in ${(r.totalMs / 1000).toFixed(1)} s\n`,
          );
        }
    }
  } finally {
    await engine.dispose();
  }
  const throughput = (n: number, batched: boolean) => {
    const sel = runs.filter((r) => r.n === n && r.batched === batched);
    const tokens = sel.reduce((s, r) => s + r.tokens, 0);
    const ms = sel.reduce((s, r) => s + r.ms, 0);
    return { tokens, seconds: ms / 1000, tokensPerSecond: tokens / (ms / 1000) };
  };
  const one = throughput(1, true);
  const summary = [2, 4].map((n) => {
    const batched = throughput(n, true);
    const sequential = throughput(n, false);
    return {
      n,
      batched,
      oneByOne: sequential,
      speedupOverOneByOne: batched.tokensPerSecond / sequential.tokensPerSecond,
      speedupOverOneRow: batched.tokensPerSecond / one.tokensPerSecond,
    };
  });
  const result = {
    benchmark: 'plan-batch',
    description:
      "Prove's generator plan (solution ≤ 256 tokens, boxed final answer, self-evaluation ≤ 64 tokens, score choice), temperature 0.8, n candidates decoded in batched passes vs one after another; throughput counts every row's plan tokens (forced text included) over wall time, prompt prefill included",
    date: new Date().toISOString(),
    machine: {
      ...benchMachine(),
    },
    model: { name: engine.info.name, modelDir: portablePath(modelDir), variant },
    oneRow: one,
    summary,
    runs,
  };
  const out = path.join(findPackageRoot(), 'bench', 'results', 'plan-batch.json');
  fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(JSON.stringify({ oneRow: one, summary }, null, 2) + '\n');
}

main().catch((err: Error & { hint?: string }) => {
  process.stderr.write(`bench/plan-batch: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`);
  process.exitCode = 1;
});
