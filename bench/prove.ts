/**
 * Benchmark of the prove flow on the default model: one round of a proof of Prove's default length and
 * one verification pass, as the flow runs it (structured plans where the model takes them).
 * Writes bench/results/prove.json.
 *
 *   npx tsc -p tsconfig.json && node out/bench/prove.js [--model-dir DIR] [--variant q4|q8|fp32]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { createModelBackend } from '../src/core/model/factory';
import { DEFAULT_VARIANT, defaultModelDir } from '../src/core/model/defaults';
import type { GenerateOptions, GenerateResult, ModelBackend, ModelInput } from '../src/core/model/types';
import { proveAndVerify } from '../src/core/prove/prove';
import { PROVE_DEFAULTS } from '../src/core/prove/runSchema';
import { findPackageRoot } from '../src/core/resources';
import { benchMachine, portablePath } from './machine';

const PROBLEM = 'Prove that the product of any three consecutive integers is divisible by 6.';
/** Issue 13's round: a proof as long as Prove's default allows and one verification pass. */
const PROOF_TOKENS = PROVE_DEFAULTS.maxTokens;
// Deliberately shorter than Prove's verifier default, as in issue 13's first measurement, so the
// round's time compares with it; the description in prove.json says both lengths.
const VERIFIER_TOKENS = 256;

/** Records every generate call's timing and token counts while passing it through. */
function counting(
  backend: ModelBackend,
  calls: { tokens: number; ms: number; ttftMs: number; n: number }[],
): ModelBackend {
  return {
    info: backend.info,
    async generate(input: ModelInput, options?: GenerateOptions): Promise<GenerateResult> {
      const result = await backend.generate(input, options);
      const tokens = result.completions.reduce((s, c) => s + c.tokens.length, 0);
      calls.push({
        tokens,
        ms: result.totalMs,
        ttftMs: result.timeToFirstTokenMs,
        n: result.completions.length,
      });
      return result;
    },
    score: (prompt, continuation, options) => backend.score(prompt, continuation, options),
    planSupport: () => backend.planSupport(),
    async generatePlan(input, plan, options) {
      const result = await backend.generatePlan(input, plan, options);
      calls.push({
        tokens: result.completions.reduce((s, c) => s + c.tokenCount, 0),
        ms: result.totalMs,
        ttftMs: result.timeToFirstTokenMs,
        n: result.completions.length,
      });
      return result;
    },
    dispose: () => backend.dispose(),
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'model-dir': { type: 'string' }, variant: { type: 'string' } } });
  const modelDir = values['model-dir'] ?? defaultModelDir();
  const variant = (values.variant ?? DEFAULT_VARIANT) as 'fp32' | 'q8' | 'q4';
  const loadStarted = performance.now();
  const model = await createModelBackend({ backend: 'onnx', modelDir, variant, device: 'auto' });
  const loadMs = performance.now() - loadStarted;
  const repetitions = [];
  try {
    // The model may end a proof early (end of sequence), so a few seeds are run and every token count is reported.
    for (const seed of [1, 2, 3]) {
      const calls: { tokens: number; ms: number; ttftMs: number; n: number }[] = [];
      const run = await proveAndVerify(
        {
          problem: PROBLEM,
          options: {
            maxIterations: 1,
            maxTokens: PROOF_TOKENS,
            verifierMaxTokens: VERIFIER_TOKENS,
            verifierPasses: 1,
            metaVerify: false,
            stepScores: false,
            seed,
          },
        },
        { generator: counting(model, calls) },
      );
      if (run.status !== 'completed') throw new Error(`the run ${run.status}: ${run.error?.message ?? ''}`);
      const round = run.iterations[0];
      const candidate = round.candidates[0];
      const [generation, verification] = calls;
      repetitions.push({
        seed,
        generation: {
          tokens: generation?.tokens,
          ms: round.generateMs,
          timeToFirstTokenMs: round.timeToFirstTokenMs,
          tokensPerSecond: generation ? generation.tokens / (generation.ms / 1000) : null,
        },
        verification: {
          tokens: verification?.tokens ?? 0,
          ms: candidate.verifier?.ms ?? null,
          tokensPerSecond: verification ? verification.tokens / (verification.ms / 1000) : null,
        },
        roundMs: round.totalMs,
        formatReward: candidate.parsed.formatReward,
        formatProblems: candidate.parsed.problems,
        selfScore: candidate.parsed.selfScore,
        verifierScore: candidate.verifier?.score ?? null,
      });
    }
    const totals = repetitions.reduce(
      (t, r) => ({
        tokens: t.tokens + (r.generation.tokens ?? 0) + r.verification.tokens,
        ms: t.ms + r.roundMs,
      }),
      { tokens: 0, ms: 0 },
    );
    const result = {
      benchmark: 'prove',
      description: `one round: a proof of up to ${PROOF_TOKENS} tokens and one verification pass of up to ${VERIFIER_TOKENS} tokens, greedy verifier, structured plans where the model takes them`,
      date: new Date().toISOString(),
      machine: {
        ...benchMachine(),
      },
      model: { ...model.info, modelDir: portablePath(modelDir), variant },
      loadMs,
      repetitions,
      medianRoundMs: median(repetitions.map((r) => r.roundMs)),
      tokensPerSecondOverall: totals.tokens / (totals.ms / 1000),
    };
    const out = path.join(findPackageRoot(), 'bench', 'results', 'prove.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } finally {
    await model.dispose();
  }
}

main().catch((err: Error & { hint?: string }) => {
  process.stderr.write(`bench/prove: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`);
  process.exitCode = 1;
});
