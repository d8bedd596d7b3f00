/**
 * What generation plans cost next to free generation, on the default model (local ONNX) and on
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
import { defaultModelDir } from '../src/core/model/defaults';
import { OnnxEngine } from '../src/core/model/onnx/engine';
import { OpenAIBackend } from '../src/core/model/openai';
import type { PlanSegment } from '../src/core/model/plan';
import { findPackageRoot } from '../src/core/resources';
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

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
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
  });
  try {
    const tokenTexts = await timed(async () => engine.tokenTexts().length);
    const tokens = 128;
    const freeRuns = [];
    for (let i = 0; i < 3; i++) {
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
      freeRuns.push({
        generateTokensPerSecond: tokens / ((free.ms - free.value.timeToFirstTokenMs) / 1000),
        generateWithoutRepetitionControlTokensPerSecond:
          tokens / ((noRepeat.ms - noRepeat.value.timeToFirstTokenMs) / 1000),
        planFreeSegmentTokens: plan.value.completions[0].tokenCount,
        planFreeSegmentTokensPerSecond:
          plan.value.completions[0].tokenCount / ((plan.ms - plan.value.timeToFirstTokenMs) / 1000),
      });
    }

    const choices = [];
    for (const options of [['0', '0.5', '1'], ['A', 'B'], Array.from({ length: 11 }, (_, i) => String(i))]) {
      const prefill = await timed(() =>
        engine.generatePlan(PROVE, [scorePlan(options)[0]], { temperature: 0 }),
      );
      const withChoice = await timed(() =>
        engine.generatePlan(PROVE, scorePlan(options), { temperature: 0 }),
      );
      choices.push({ options, choiceMs: withChoice.ms - prefill.ms });
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
        tokensPerSecond: c.tokenCount / ((run.ms - run.value.timeToFirstTokenMs) / 1000),
      });
    }

    const prove = [];
    for (let i = 0; i < 2; i++) {
      const run = await timed(() => engine.generatePlan(PROVE, provePlan(96, 48), { temperature: 0 }));
      prove.push({
        ms: run.ms,
        tokens: run.value.completions[0].tokenCount,
        text: run.value.completions[0].text,
      });
    }
    return {
      model: { ...engine.info, modelDir },
      tokenTextsMs: tokenTexts.ms,
      freeText: freeRuns,
      medianGenerateTokensPerSecond: median(freeRuns.map((r) => r.generateTokensPerSecond)),
      medianPlanFreeTokensPerSecond: median(freeRuns.map((r) => r.planFreeSegmentTokensPerSecond)),
      choices,
      assertions,
      medianAssertionTokensPerSecond: median(assertions.map((a) => a.tokensPerSecond)),
      proveShapedPlan: prove,
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
    const tokens = 150;
    const logprobs = [];
    for (let i = 0; i < 2; i++) {
      const without = await timed(() => backend.generate(STORY, { temperature: 0, maxTokens: tokens }));
      const withLp = await timed(() =>
        backend.generate(STORY, { temperature: 0, maxTokens: tokens, logprobs: true }),
      );
      logprobs.push({
        tokens: [without.value.completions[0].tokens.length, withLp.value.completions[0].tokens.length],
        withoutMs: without.ms,
        withMs: withLp.ms,
      });
    }
    const probe = await timed(() => backend.planSupport());
    const choices = [];
    for (const options of [['0', '0.5', '1'], Array.from({ length: 11 }, (_, i) => String(i))]) {
      const run = await timed(() => backend.generatePlan(PROVE, scorePlan(options), { temperature: 0 }));
      choices.push({ options, ms: run.ms, optionMass: run.value.completions[0].segments[1].optionMass });
    }
    const free = await timed(() => backend.generate(PROVE, { temperature: 0, maxTokens: 144 }));
    const plan = await timed(() => backend.generatePlan(PROVE, provePlan(96, 48), { temperature: 0 }));
    return {
      server: 'llama-cpp-python (SmolLM2-135M-Instruct Q4_1 GGUF), 2 threads',
      generate150: logprobs,
      medianLogprobSlowdown: median(logprobs.map((l) => l.withMs / l.withoutMs)),
      planSupport: { ...probe.value, probeMs: probe.ms },
      choices,
      proveShapedPlan: { ms: plan.ms, tokens: plan.value.completions[0].tokenCount },
      freeGenerationOfSimilarLength: { ms: free.ms, tokens: free.value.completions[0].tokens.length },
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
      data: { type: 'string' },
    },
  });
  const modelDir = values['model-dir'] ?? defaultModelDir();
  const dataDir = values.data ?? path.join(findPackageRoot(), '..', 'shared', 'data');
  const loadBefore = os.loadavg();
  const onnx = await local(modelDir, dataDir);
  const remote = values['skip-endpoint'] ? null : await endpoint(modelDir);
  const result = {
    benchmark: 'plans',
    description:
      'generation plans vs free generation: decoding speed with masking, choice scoring cost, Prove-shaped and assertion plans; endpoint log-probability cost',
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      platform: `${os.platform()} ${os.arch()}`,
      node: process.version,
      // The machine is shared: the load average says how much the figures are worth.
      loadAverageBefore: loadBefore,
      loadAverageAfter: os.loadavg(),
    },
    onnx,
    endpoint: remote,
  };
  const out = path.join(findPackageRoot(), 'bench', 'results', 'plans.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

main().catch((err: Error & { hint?: string }) => {
  process.stderr.write(`bench/plans: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`);
  process.exitCode = 1;
});
