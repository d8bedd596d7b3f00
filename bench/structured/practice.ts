/**
 * A practice sample, free and constrained judging side by side: how many judge scores could not be
 * read, and the reliability metrics R_cons / R_sep / R_stab of each question.
 */
import type { ModelBackend } from '../../src/core/model/types';
import { generatePracticeSet } from '../../src/core/practice/loop';
import { mean, progress, type Mode, type Results } from './results';

export interface PracticeSettings {
  questions: number;
  judgePasses: number;
}

export async function runPractice(
  model: ModelBackend,
  modes: Mode[],
  settings: PracticeSettings,
  results: Results,
): Promise<void> {
  for (const mode of modes) {
    const id = `sample-${settings.questions}`;
    if (results.has({ part: 'practice', mode, id })) continue;
    const started = performance.now();
    const set = await generatePracticeSet({
      generator: model,
      questions: settings.questions,
      topic: 'arithmetic and algebra',
      judgePasses: settings.judgePasses,
      pairPasses: 1,
      bestOfN: 1,
      weights: { cons: 0.4, sep: 0.3, stab: 0.3 },
      thresholds: { cons: 0.8, sep: 0.1, stab: 0.7 },
      constrained: mode === 'constrained',
      seed: 7,
      onEvent: (e) => {
        if (e.type === 'phase') progress('practice', mode, e.question, e.of, e.phase);
      },
    });
    const judgments = set.questions.reduce(
      (s, q) => s + Object.values(q.scoreJudgments ?? {}).reduce((t, js) => t + js.length, 0),
      0,
    );
    results.add({
      part: 'practice',
      mode,
      id,
      ms: performance.now() - started,
      judging: set.judging ?? null,
      questions: set.questions.length,
      proposalsWithoutQuestion: set.proposalsWithoutQuestion,
      scoreJudgments: judgments,
      unreadableJudgeScores: set.questions.reduce((s, q) => s + q.judgeFailures, 0),
      perQuestion: set.questions.map((q) => ({
        question: q.question,
        rCons: q.reliability.rCons,
        rSep: q.reliability.rSep,
        rStab: q.reliability.rStab,
        scores: q.scores,
        notes: q.reliability.notes,
      })),
    });
  }
}

export function summarisePractice(results: Results, mode: Mode): Record<string, unknown> {
  const [item] = results.items('practice', mode);
  if (!item) return { items: 0 };
  const qs = (item.perQuestion as { rCons: number; rSep: number | null; rStab: number }[]) ?? [];
  return {
    questions: item.questions,
    judging: item.judging,
    scoreJudgments: item.scoreJudgments,
    unreadableJudgeScores: item.unreadableJudgeScores,
    meanRCons: mean(qs.map((q) => q.rCons)),
    meanRSep: mean(qs.map((q) => q.rSep).filter((x): x is number => x !== null)),
    rSepMeasured: qs.filter((q) => q.rSep !== null).length,
    meanRStab: mean(qs.map((q) => q.rStab)),
    secondsPerQuestion: item.questions ? item.ms / 1000 / (item.questions as number) : null,
  };
}
