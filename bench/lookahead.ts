/**
 * Benchmark of lookahead (prompt-lookup guesses fed with each token, src/core/model/lookahead.ts):
 * the embedded engine with and without it, on three workloads a user runs, in this process:
 *   - explain: bench:generate's decode prompt, 200 greedy tokens, no repetition ban;
 *   - prove: Prove's generator plan (solution ≤ 256 tokens, boxed answer, self-evaluation ≤ 64
 *     tokens, score choice) on three problems, temperature 0.8;
 *   - tests: stage 1 of the tests flow on three Python functions: the generator's informal
 *     reasoning (≤ 160 tokens, greedy), then its test writer's assertion-lines plan.
 * Each workload runs with and without lookahead, alternating, `--repeats` times; the figure is the
 * median rate (tokens over wall time). Writes bench/results/lookahead.json (or --out).
 *
 *   npx tsc -p tsconfig.json && node out/bench/lookahead.js [--model-dir DIR] [--repeats 3] [--out FILE]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { functionPromptValues, type PromptFunction } from '../src/core/tests/pipeline';
import { loadStageChain, StageConversation } from '../src/core/tests/stages';
import { assertionPlan } from '../src/core/tests/testWriter';
import { DEFAULT_VARIANT, defaultModelDir } from '../src/core/model/defaults';
import { emptyLookaheadStats, type LookaheadStats } from '../src/core/model/lookahead';
import { OnnxEngine } from '../src/core/model/onnx/engine';
import type { ChatMessage } from '../src/core/model/types';
import { generatorPlan } from '../src/core/prove/generate';
import { loadPrompt, renderPrompt } from '../src/core/prove/prompts';
import { findPackageRoot } from '../src/core/resources';
import { SPEED_PROMPT } from './generate-prompts';
import { benchMachine, portablePath } from './machine';

const PROBLEMS = [
  'What is the sum of the first 100 positive integers?',
  'Find the remainder when $2^{10}$ is divided by 7.',
  'How many positive divisors does 36 have?',
];

const FUNCTIONS: PromptFunction[] = [
  {
    name: 'running_max',
    language: 'python',
    signature: 'def running_max(xs: list[int]) -> list[int]:',
    docstring: 'Return the list of maxima of every prefix of xs.',
  },
  {
    name: 'is_palindrome',
    language: 'python',
    signature: 'def is_palindrome(text: str) -> bool:',
    docstring: 'True when text reads the same backwards, ignoring case and spaces.',
  },
  {
    name: 'count_vowels',
    language: 'python',
    signature: 'def count_vowels(word: str) -> int:',
    docstring: 'Count the vowels (a, e, i, o, u) in word, in either case.',
  },
];

interface Run {
  tokens: number;
  ms: number;
  text: string;
  lookahead: LookaheadStats;
}

type Workload = (engine: OnnxEngine, lookahead: boolean) => Promise<Run[]>;

const add = (a: LookaheadStats, b: LookaheadStats) => ({
  guessed: a.guessed + b.guessed,
  accepted: a.accepted + b.accepted,
});

const WORKLOADS: Record<string, Workload> = {
  explain: async (engine, lookahead) => {
    const r = await engine.generateBatch([engine.codec.encodeInput(SPEED_PROMPT)], {
      maxTokens: 200,
      minTokens: 200,
      temperature: 0,
      repetition: { noRepeatNgram: 0 },
      lookahead,
    });
    const c = r.completions[0];
    return [{ tokens: c.tokens.length, ms: r.totalMs, text: c.text, lookahead: r.lookahead }];
  },
  prove: async (engine, lookahead) => {
    const plan = generatorPlan(256, 64, true);
    const runs: Run[] = [];
    for (const problem of PROBLEMS) {
      const input: ChatMessage[] = [
        { role: 'user', content: renderPrompt(loadPrompt('generator'), { problem }) },
      ];
      const r = await engine.generatePlan(input, plan, { temperature: 0.8, seed: 1, lookahead });
      const c = r.completions[0];
      runs.push({ tokens: c.tokenCount, ms: r.totalMs, text: c.text, lookahead: r.lookahead });
    }
    return runs;
  },
  tests: async (engine, lookahead) => {
    const chain = loadStageChain();
    const stage = chain.stages[0];
    const runs: Run[] = [];
    for (const fn of FUNCTIONS) {
      const conversation = new StageConversation(chain, functionPromptValues(fn));
      const reasoning = await engine.generate(conversation.generator([], stage), {
        maxTokens: 160,
        temperature: 0,
        lookahead,
      });
      const written = { stage, reasoning: reasoning.completions[0].text };
      const plan = assertionPlan(fn, stage.testBudget, 96);
      const tests = await engine.generatePlan(conversation.testWriter([written], stage), plan, {
        temperature: 0,
        lookahead,
      });
      const c = tests.completions[0];
      runs.push({
        tokens: reasoning.completions[0].tokens.length + c.tokenCount,
        ms: reasoning.totalMs + tests.totalMs,
        text: reasoning.completions[0].text + c.text,
        lookahead: add(reasoning.lookahead, tests.lookahead),
      });
    }
    return runs;
  },
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'model-dir': { type: 'string' },
      repeats: { type: 'string', default: '3' },
      out: { type: 'string' },
    },
  });
  const modelDir = values['model-dir'] ?? defaultModelDir();
  const repeats = Math.max(1, Number(values.repeats));
  const engine = await OnnxEngine.load({
    modelDir,
    variant: DEFAULT_VARIANT,
    device: 'cpu',
    threads: os.cpus().length,
    // Both arms run each workload's whole prompt: a repeat must not start from the last one's cache.
    prefixCache: false,
  });
  const workloads: Record<string, unknown> = {};
  try {
    for (const [name, workload] of Object.entries(WORKLOADS)) {
      await workload(engine, true); // warm-up: first-run allocations and kernel choices
      const seconds: Record<'off' | 'on', number[]> = { off: [], on: [] };
      const rates: Record<'off' | 'on', number[]> = { off: [], on: [] };
      let tokens = 0;
      let stats = emptyLookaheadStats();
      let sameText = true;
      for (let r = 0; r < repeats; r++) {
        // Alternating which goes first keeps a drift in load from favouring one.
        const order = r % 2 === 0 ? [false, true] : [true, false];
        const texts: Record<string, string> = {};
        for (const on of order) {
          const runs = await workload(engine, on);
          const s = runs.reduce((sum, x) => sum + x.ms, 0) / 1000;
          seconds[on ? 'on' : 'off'].push(s);
          // Texts may part after a near tie (a two-token pass rounds differently), so rates, not times, compare.
          rates[on ? 'on' : 'off'].push(runs.reduce((sum, x) => sum + x.tokens, 0) / s);
          texts[String(on)] = runs.map((x) => x.text).join('\u0000');
          if (on) {
            tokens = runs.reduce((s, x) => s + x.tokens, 0);
            stats = runs.reduce((s, x) => add(s, x.lookahead), emptyLookaheadStats());
          }
        }
        sameText &&= texts.true === texts.false;
      }
      const off = median(rates.off);
      const on = median(rates.on);
      workloads[name] = {
        tokens,
        tokensPerSecond: { without: round(off, 1), with: round(on, 1) },
        speedup: round(on / off),
        guessed: stats.guessed,
        accepted: stats.accepted,
        acceptedShareOfTokens: round(stats.accepted / Math.max(1, tokens)),
        sameTextWithAndWithout: sameText,
        runs: { seconds, tokensPerSecond: rates },
      };
      process.stderr.write(`${name}: ${JSON.stringify(workloads[name])}\n`);
    }
  } finally {
    await engine.dispose();
  }
  const result = {
    benchmark: 'lookahead',
    description:
      'Embedded engine with and without prompt-lookup lookahead (a guessed next-next token fed with each token, kept when it is the token chosen). Tokens per second count every generated or forced plan token over wall time, prompt prefill included; median of the repeats, alternating order.',
    date: new Date().toISOString(),
    machine: benchMachine(),
    model: { name: engine.info.name, modelDir: portablePath(modelDir), variant: DEFAULT_VARIANT },
    repeats,
    workloads,
  };
  const out = values.out ?? path.join(findPackageRoot(), 'bench', 'results', 'lookahead.json');
  fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(JSON.stringify(workloads, null, 2) + '\n');
}

main().catch((err: Error & { hint?: string }) => {
  process.stderr.write(`bench/lookahead: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`);
  process.exitCode = 1;
});
