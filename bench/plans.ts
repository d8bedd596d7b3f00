/**
 * What generation plans cost next to free generation, on SmolLM2-135M (local ONNX, fp32) and on
 * llama-cpp-python serving the same model: decoding speed with masking on, the cost of scoring a
 * choice, and (issue 19, item 1) what asking an endpoint for log-probabilities costs. Writes
 * bench/results/plans.json.
 *
 *   npx tsc -p tsconfig.json && flock /tmp/stepwise-bench.lock nice -n 5 node out/bench/plans.js [--model-dir DIR] [--skip-endpoint]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { modelsRoot } from '../src/core/model/defaults';
import { OnnxEngine } from '../src/core/model/onnx/engine';
import { OpenAIBackend } from '../src/core/model/openai';
import type { PlanSegment } from '../src/core/model/plan';
import { findPackageRoot } from '../src/core/resources';
import { benchMachine, portablePath } from './machine';
import { startLlamaServer } from '../test/servers/llama-server';

const STORY = [
  { role: 'user' as const, content: 'Write a long story about a dragon who learns arithmetic.' },
];
const PROVE = [{ role: 'user' as const, content: 'Prove that the sum of two even integers is even.' }];

const provePlan = (proof: number, evaluation: number): PlanSegment[] => [
  { kind: 'text', text: '## Solution\n' },
  { kind: 'free', name: 'solution', maxTokens: proof, stop: ['## Self Evaluation'] },
  { kind: 'text', text: '\n\n## Self Evaluation\n\nHere is my evaluation of the solution:' },
  { kind: 'free', name: 'evaluation', maxTokens: evaluation, stop: ['\\boxed'] },
  { kind: 'text', text: '\n\nBased on my evaluation, the final overall score should be: \\boxed{' },
  { kind: 'choice', name: 'score', options: ['0', '0.5', '1'] },
  { kind: 'text', text: '}' },
];

const scorePlan = (options: string[]): PlanSegment[] => [
  { kind: 'text', text: 'Here is my evaluation of the solution: it is correct.\n\\boxed{' },
  { kind: 'choice', name: 'score', options },
  { kind: 'text', text: '}' },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * Wall time and CPU time of `work`: this process's (the ONNX engine runs in it) or, given a pid,
 * that process's (the model server). This machine is shared, so wall times swing with other
 * people's work; CPU time measures the work itself and is what the comparisons rest on.
 */
async function timed<T>(
  work: () => Promise<T>,
  pid?: number,
): Promise<{ value: T; ms: number; cpuMs: number }> {
  const cpu = () => (pid === undefined ? ownCpuMs() : processCpuMs(pid));
  const cpuBefore = cpu();
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started, cpuMs: cpu() - cpuBefore };
}

function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** User + system CPU time of a process and its threads, from /proc (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function humanEval(dataDir: string, count: number): { prompt: string; entry_point: string }[] {
  const file = path.join(dataDir, 'HumanEval.jsonl.gz');
  return gunzipSync(fs.readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, count)
    .map((l) => JSON.parse(l) as { prompt: string; entry_point: string });
}

async function local(modelDir: string, dataDir: string) {
  const engine = await OnnxEngine.load({
    modelDir,
    variant: 'fp32',
    device: 'cpu',
    threads: os.cpus().length,
    // The variants are timed on the same prompts one after another: each must run its prompt whole.
    prefixCache: false,
  });
  try {
    const tokenTexts = await timed(async () => engine.tokenTexts().length);
    const tokens = 128;
    const perToken = (r: { ms: number; cpuMs: number }, n: number) => ({
      wallMsPerToken: r.ms / n,
      cpuMsPerToken: r.cpuMs / n,
    });
    // Alternated, so that a load change on this shared machine hits every variant alike.
    const freeRuns = [];
    for (let i = 0; i < 2; i++) {
      const free = await timed(() =>
        engine.generate(STORY, { temperature: 0, maxTokens: tokens, minTokens: tokens }),
      );
      const noRepeat = await timed(() =>
        engine.generate(STORY, {
          temperature: 0,
          maxTokens: tokens,
          minTokens: tokens,
          repetition: { noRepeatNgram: 0 },
        }),
      );
      const plan = await timed(() =>
        engine.generatePlan(STORY, [{ kind: 'free', name: 'story', maxTokens: tokens }], { temperature: 0 }),
      );
      const planTokens = plan.value.completions[0].tokenCount;
      freeRuns.push({
        generate: perToken(free, tokens),
        generateWithoutRepetitionControl: perToken(noRepeat, tokens),
        planFreeSegment: { tokens: planTokens, ...perToken(plan, planTokens) },
      });
    }

    const choices = [];
    for (const options of [['0', '0.5', '1'], ['A', 'B'], Array.from({ length: 11 }, (_, i) => String(i))]) {
      const before = await timed(() =>
        engine.generatePlan(PROVE, [scorePlan(options)[0]], { temperature: 0 }),
      );
      const withChoice = await timed(() =>
        engine.generatePlan(PROVE, scorePlan(options), { temperature: 0 }),
      );
      choices.push({
        options,
        // The forced text before the choice is fed only when something follows it, so this is
        // the choice plus one forward pass over that text.
        wallMs: withChoice.ms - before.ms,
        cpuMs: withChoice.cpuMs - before.cpuMs,
      });
    }

    const assertions = [];
    for (const p of humanEval(dataDir, 5)) {
      const run = await timed(() =>
        engine.generatePlan(
          [
            {
              role: 'user',
              content: `Write Python assert statements that test this function, one per line.\n\n${p.prompt}`,
            },
          ],
          [
            { kind: 'text', text: '```python\n' },
            {
              kind: 'assertions',
              name: 'tests',
              language: 'python',
              functionName: p.entry_point,
              maxLines: 8,
              maxTokensPerLine: 64,
            },
          ],
          { temperature: 0 },
        ),
      );
      const c = run.value.completions[0];
      const seg = c.segments[1];
      assertions.push({
        function: p.entry_point,
        lines: seg.lines?.length,
        dropped: seg.dropped,
        finishReason: seg.finishReason,
        tokens: c.tokenCount,
        ...perToken(run, c.tokenCount),
      });
    }

    const prove = await timed(() => engine.generatePlan(PROVE, provePlan(96, 48), { temperature: 0 }));
    const proveFree = await timed(() =>
      engine.generate(PROVE, { temperature: 0, maxTokens: prove.value.completions[0].tokenCount }),
    );
    return {
      model: { ...engine.info, modelDir: portablePath(modelDir) },
      tokenTextsMs: tokenTexts.ms,
      freeText: freeRuns,
      medianCpuMsPerToken: {
        generate: median(freeRuns.map((r) => r.generate.cpuMsPerToken)),
        generateWithoutRepetitionControl: median(
          freeRuns.map((r) => r.generateWithoutRepetitionControl.cpuMsPerToken),
        ),
        planFreeSegment: median(freeRuns.map((r) => r.planFreeSegment.cpuMsPerToken)),
        assertionPlan: median(assertions.map((a) => a.cpuMsPerToken)),
      },
      choices,
      assertions,
      proveShapedPlan: {
        tokens: prove.value.completions[0].tokenCount,
        wallMs: prove.ms,
        cpuMs: prove.cpuMs,
        text: prove.value.completions[0].text,
      },
      freeGenerationOfTheSameLength: {
        tokens: proveFree.value.completions[0].tokens.length,
        wallMs: proveFree.ms,
        cpuMs: proveFree.cpuMs,
      },
    };
  } finally {
    await engine.dispose();
  }
}

async function endpoint(tokenizerDir: string) {
  const server = await startLlamaServer({ contextWindow: 2048, deadlineMs: 120_000 });
  try {
    const backend = await OpenAIBackend.connect({
      baseUrl: server.origin,
      model: server.model,
      contextWindow: server.contextWindow,
      tokenizerDir,
      timeoutMs: 600_000,
    });
    // Alternated, so that a load change on this shared machine hits both sides alike; the
    // server's CPU time is what the comparison rests on.
    const pid = server.pid;
    const tokens = 96;
    const logprobs = [];
    for (let i = 0; i < 3; i++) {
      const without = await timed(
        () => backend.generate(STORY, { temperature: 0, maxTokens: tokens, minTokens: tokens }),
        pid,
      );
      const withLp = await timed(
        () =>
          backend.generate(STORY, { temperature: 0, maxTokens: tokens, minTokens: tokens, logprobs: true }),
        pid,
      );
      logprobs.push({
        tokens: [without.value.completions[0].tokens.length, withLp.value.completions[0].tokens.length],
        without: { wallMs: without.ms, serverCpuMs: without.cpuMs },
        with: { wallMs: withLp.ms, serverCpuMs: withLp.cpuMs },
      });
    }
    const probe = await timed(() => backend.planSupport(), pid);
    const choices = [];
    for (const options of [['0', '0.5', '1'], Array.from({ length: 11 }, (_, i) => String(i))]) {
      const before = await timed(
        () => backend.generatePlan(PROVE, [scorePlan(options)[0]], { temperature: 0 }),
        pid,
      );
      const run = await timed(() => backend.generatePlan(PROVE, scorePlan(options), { temperature: 0 }), pid);
      choices.push({
        options,
        wallMs: run.ms - before.ms,
        serverCpuMs: run.cpuMs - before.cpuMs,
        optionMass: run.value.completions[0].segments[1].optionMass,
      });
    }
    const plan = await timed(() => backend.generatePlan(PROVE, provePlan(96, 48), { temperature: 0 }), pid);
    const free = await timed(
      () => backend.generate(PROVE, { temperature: 0, maxTokens: plan.value.completions[0].tokenCount }),
      pid,
    );
    return {
      server: 'llama-cpp-python (SmolLM2-135M-Instruct Q4_1 GGUF), 2 threads',
      generate96: logprobs,
      medianServerCpuRatioWithLogprobs: median(
        logprobs.map((l) => l.with.serverCpuMs / l.without.serverCpuMs),
      ),
      planSupport: { ...probe.value, wallMs: probe.ms, serverCpuMs: probe.cpuMs },
      choices,
      proveShapedPlan: {
        tokens: plan.value.completions[0].tokenCount,
        wallMs: plan.ms,
        serverCpuMs: plan.cpuMs,
      },
      freeGenerationOfTheSameLength: {
        tokens: free.value.completions[0].tokens.length,
        wallMs: free.ms,
        serverCpuMs: free.cpuMs,
      },
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'model-dir': { type: 'string' },
      'skip-endpoint': { type: 'boolean' },
      'skip-onnx': { type: 'boolean' },
      data: { type: 'string' },
    },
  });
  // SmolLM2's fp32 build: llama-cpp-python serves the same model's GGUF for the comparison.
  const modelDir = values['model-dir'] ?? path.join(modelsRoot(), 'SmolLM2-135M-Instruct');
  const dataDir = values.data ?? path.join(findPackageRoot(), '..', 'shared', 'data');
  const loadBefore = os.loadavg();
  const out = path.join(findPackageRoot(), 'bench', 'results', 'plans.json');
  const previous = fs.existsSync(out)
    ? (JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>)
    : {};
  // A part that is skipped keeps its figures from the last run.
  const onnx = values['skip-onnx'] ? (previous.onnx ?? null) : await local(modelDir, dataDir);
  const remote = values['skip-endpoint'] ? (previous.endpoint ?? null) : await endpoint(modelDir);
  const result = {
    benchmark: 'plans',
    description:
      'generation plans vs free generation: decoding speed with masking, choice scoring cost, Prove-shaped and assertion plans; endpoint log-probability cost',
    date: new Date().toISOString(),
    machine: {
      ...benchMachine(),
      // The machine is shared: the load average says how much the figures are worth.
      loadAverageBefore: loadBefore,
      loadAverageAfter: os.loadavg(),
    },
    onnx,
    endpoint: remote,
  };
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

main().catch((err: Error & { hint?: string }) => {
  process.stderr.write(`bench/plans: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`);
  process.exitCode = 1;
});
