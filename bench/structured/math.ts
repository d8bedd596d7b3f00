/**
 * MATH-500 through Prove, free and constrained side by side: one round, one candidate, greedy, one
 * verifier pass, no meta-verification and no step scores (what is measured is the generator's
 * answer and the scores, not refinement). Per item: whether the answer has both sections and a
 * score, its final boxed answer against the dataset's, and the expected self- and verifier scores.
 */
import * as fs from 'node:fs';
import type { ModelBackend } from '../../src/core/model/types';
import { auroc, expectedCalibrationError } from '../../src/core/prove/calibration';
import { proveAndVerify } from '../../src/core/prove/prove';
import { mean, progress, share, type ItemRecord, type Mode, type Results } from './results';

export interface MathRow {
  problem: string;
  answer: string;
  unique_id?: string;
}

export function loadMath(file: string, limit: number): MathRow[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, limit)
    .map((l) => JSON.parse(l) as MathRow);
}

export interface MathSettings {
  maxTokens: number;
  selfEvalMaxTokens: number;
  verifierMaxTokens: number;
}

export async function runMath(
  rows: MathRow[],
  model: ModelBackend,
  modes: Mode[],
  settings: MathSettings,
  results: Results,
): Promise<void> {
  for (const mode of modes) {
    for (const [i, row] of rows.entries()) {
      const id = row.unique_id ?? `row-${i}`;
      if (results.has({ part: 'math', mode, id })) continue;
      const started = performance.now();
      const run = await proveAndVerify(
        {
          problem: row.problem,
          referenceAnswer: row.answer,
          // One greedy answer per problem, whatever Prove's defaults: the format of one answer is
          // what is measured.
          options: {
            maxIterations: 1,
            candidates: 1,
            metaVerify: false,
            stepScores: false,
            temperature: 0,
            constrained: mode === 'constrained',
            maxTokens: settings.maxTokens,
            selfEvalMaxTokens: settings.selfEvalMaxTokens,
            verifierMaxTokens: settings.verifierMaxTokens,
          },
        },
        { generator: model },
      );
      if (run.status === 'failed') throw new Error(`${id}: ${run.error?.message ?? 'the run failed'}`);
      const c = run.iterations[0]?.candidates[0];
      const item: ItemRecord = {
        part: 'math',
        mode,
        id,
        ms: performance.now() - started,
        generatedAs: run.generation.generator.mode,
        fallbackReason: run.generation.generator.fallbackReason,
        finishReason: c?.finishReason ?? null,
        bothSectionsAndScore:
          !!c && c.parsed.proof !== '' && c.parsed.selfAnalysis !== '' && c.parsed.selfScore !== null,
        formatReward: c?.parsed.formatReward ?? 0,
        selfScore: c?.parsed.selfScore ?? null,
        selfScoreDistribution:
          c?.selfScoreDistribution?.options.map((o) => [o.option, o.probability]) ?? null,
        verifierScore: c?.verifier?.score ?? null,
        answer: c?.answerCheck?.answer ?? null,
        reference: row.answer,
        correct: c?.answerCheck?.matches ?? false,
        problems: c?.parsed.problems ?? [],
      };
      results.add(item);
      progress(
        'math',
        mode,
        i + 1,
        rows.length,
        `${(item.ms / 1000).toFixed(1)} s, sections+score ${item.bothSectionsAndScore}, answer ${String(item.answer)} vs ${row.answer}`,
      );
    }
  }
}

export function summariseMath(results: Results, mode: Mode): Record<string, unknown> {
  const items = results.items('math', mode);
  const num = (x: unknown) => (typeof x === 'number' ? x : null);
  const self = items.filter((i) => num(i.selfScore) !== null);
  const verified = items.filter((i) => num(i.verifierScore) !== null);
  const selfSamples = self.map((i) => ({ confidence: i.selfScore as number, outcome: Number(i.correct) }));
  const verifierSamples = verified.map((i) => ({
    confidence: i.verifierScore as number,
    outcome: Number(i.correct),
  }));
  return {
    items: items.length,
    generatedAs: countBy(items.map((i) => String(i.generatedAs))),
    shareBothSectionsAndScore: share(items.map((i) => i.bothSectionsAndScore === true)),
    shareFormatAccepted: share(items.map((i) => i.formatReward === 1)),
    finalAnswerAccuracy: share(items.map((i) => i.correct === true)),
    aurocSelfScoreVsCorrect: auroc(selfSamples),
    eceSelfScoreVsCorrect: expectedCalibrationError(selfSamples),
    meanExpectedSelfScore: mean(self.map((i) => i.selfScore as number)),
    aurocVerifierVsCorrect: auroc(verifierSamples),
    shareHitTokenLimit: share(items.map((i) => i.finishReason === 'length')),
    secondsPerItem: mean(items.map((i) => i.ms / 1000)),
  };
}

export function countBy(xs: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}
