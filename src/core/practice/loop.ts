import { createHash } from 'node:crypto';
import type { ModelBackend } from '../model/types';
import { resolvePlanSupport } from '../model/planCapability';
import { parseQuestion } from './judge';
import { practicePrompt as prompt } from './prompts';
import { judgePair, judgeScores, type ScoreJudgment } from './judging';
import {
  passesThresholds,
  reliability,
  weightedQuestionReward,
  type JudgedAnswer,
  type PairJudgment,
  type ReliabilityWeights,
  type RegimeStrength,
} from './metrics';
import type { PracticeAnswer, PracticeQuestion, PracticeSet } from './types';

export type { PracticeAnswer, PracticeQuestion, PracticeSet } from './types';
export { dpoPairs, generatorRewards, type DpoPair } from './pairs';

/** Token budgets of each role: a question is short, an answer longer, a judge's score shortest. */
export const PRACTICE_MAX_TOKENS = { question: 96, answer: 192, judge: 64 } as const;

export interface PracticeOptions {
  generator: ModelBackend;
  solver?: ModelBackend;
  judge?: ModelBackend;
  /** A weaker checkpoint or smaller model; adds the `weak-model` regime when given. */
  weakSolver?: ModelBackend;
  questions: number;
  topic?: string;
  /** Existing problems (or excerpts of the user's files) shown to the generator as examples. */
  seedProblems?: string[];
  judgePasses: number;
  /** Pairwise judgments per order (each pair is judged this many times as A/B and as B/A). */
  pairPasses: number;
  bestOfN: number;
  weights: ReliabilityWeights;
  thresholds: ReliabilityWeights;
  maxTokens?: { question: number; answer: number; judge: number };
  /** Judge with generation plans where the judge backend can (default true). */
  constrained?: boolean;
  seed?: number;
  signal?: AbortSignal;
  onEvent?: (e: PracticeEvent) => void;
}

export type PracticeEvent =
  | { type: 'phase'; question: number; of: number; phase: 'proposing' | 'solving' | 'judging' | 'comparing' }
  | { type: 'question-done'; question: PracticeQuestion };

const idOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/**
 * The reliability-guided loop of seed 001 for one batch: G proposes questions, S answers each
 * from regimes expected to differ in quality, J scores every answer k times and compares
 * strong/weak pairs in both orders; the reliability metrics decide which questions are kept.
 */
export async function generatePracticeSet(o: PracticeOptions): Promise<PracticeSet> {
  const started = Date.now();
  const solver = o.solver ?? o.generator;
  const judge = o.judge ?? o.generator;
  const tokens = o.maxTokens ?? PRACTICE_MAX_TOKENS;
  const emit = o.onEvent ?? (() => undefined);
  let seed = o.seed ?? 1;
  const support = await resolvePlanSupport(judge, o.constrained ?? true);
  const constrained = support.mode !== 'none';
  const judging: NonNullable<PracticeSet['judging']> =
    support.mode === 'none'
      ? { mode: 'free', planMode: null, fallbackReason: support.reason }
      : { mode: 'constrained', planMode: support.mode, fallbackReason: null };
  const questions: PracticeQuestion[] = [];
  let proposalsWithoutQuestion = 0;

  const examples = (o.seedProblems ?? [])
    .slice(0, 3)
    .map((p, i) => `Example ${i + 1}: ${p.slice(0, 400)}`)
    .join('\n');
  const generatorPrompt = prompt('question-generator', {
    topic_clause: o.topic ? ` about ${o.topic}` : '',
    examples: examples ? `\nFor inspiration (write a different problem):\n${examples}\n` : '',
  });
  // Proposals are sampled as one batch; extra samples make up for unusable ones.
  const proposals = await o.generator.generate([{ role: 'user', content: generatorPrompt }], {
    n: Math.min(o.questions * 2, 16),
    temperature: 0.9,
    maxTokens: tokens.question,
    seed: seed++,
    signal: o.signal,
  });
  const seen = new Set<string>();
  const proposed: string[] = [];
  for (const c of proposals.completions) {
    const q = parseQuestion(c.text);
    if (!q) proposalsWithoutQuestion++;
    else if (!seen.has(q) && proposed.length < o.questions) {
      seen.add(q);
      proposed.push(q);
    }
  }

  for (const [qi, question] of proposed.entries()) {
    o.signal?.throwIfAborted();
    emit({ type: 'phase', question: qi + 1, of: proposed.length, phase: 'solving' });
    const solvePrompt = [{ role: 'user' as const, content: prompt('solver', { question }) }];
    const answers: PracticeAnswer[] = [];
    const add = (regime: string, strength: RegimeStrength, text: string) =>
      answers.push({ id: `${regime}`, regime, strength, text: text.trim() });

    const greedy = await solver.generate(solvePrompt, {
      temperature: 0,
      maxTokens: tokens.answer,
      signal: o.signal,
    });
    add('greedy', 'strong', greedy.completions[0]?.text ?? '');
    if (o.bestOfN > 1) {
      const many = await solver.generate(solvePrompt, {
        n: o.bestOfN,
        temperature: 0.7,
        maxTokens: tokens.answer,
        seed: seed++,
        // Read below; endpoints return them only when asked.
        logprobs: true,
        signal: o.signal,
      });
      // Best-of-N by the solver's own mean token log-probability: no judge is consulted, so the
      // judge's later scores stay an independent measurement.
      const best = [...many.completions].sort((a, b) => meanLogprob(b.tokens) - meanLogprob(a.tokens))[0];
      add(`best-of-${o.bestOfN}`, 'strong', best?.text ?? '');
    }
    const hot = await solver.generate(solvePrompt, {
      temperature: 1.3,
      maxTokens: tokens.answer,
      seed: seed++,
      signal: o.signal,
    });
    add('high-temperature', 'weak', hot.completions[0]?.text ?? '');
    if (o.weakSolver) {
      const weak = await o.weakSolver.generate(solvePrompt, {
        temperature: 0,
        maxTokens: tokens.answer,
        signal: o.signal,
      });
      add('weak-model', 'weak', weak.completions[0]?.text ?? '');
    }

    emit({ type: 'phase', question: qi + 1, of: proposed.length, phase: 'judging' });
    const scores: Record<string, number[]> = {};
    const spreads: Record<string, number[]> = {};
    const scoreJudgments: Record<string, ScoreJudgment[]> = {};
    let judgeFailures = 0;
    for (const a of answers) {
      const judgments = await judgeScores({
        judge,
        prompt: prompt('judge-score', { question, answer: a.text }),
        passes: o.judgePasses,
        maxTokens: tokens.judge,
        constrained,
        seed: seed++,
        signal: o.signal,
      });
      scoreJudgments[a.id] = judgments;
      const readable = judgments.filter((j) => j.expected !== null);
      judgeFailures += judgments.length - readable.length;
      scores[a.id] = readable.map((j) => j.expected as number);
      spreads[a.id] = readable.map((j) => j.spread);
    }

    emit({ type: 'phase', question: qi + 1, of: proposed.length, phase: 'comparing' });
    const pairJudgments: PairJudgment[] = [];
    const strong = answers.filter((a) => a.strength === 'strong');
    const weak = answers.filter((a) => a.strength === 'weak');
    for (const s of strong) {
      for (const w of weak) {
        for (const order of ['ab', 'ba'] as const) {
          const [A, B] = order === 'ab' ? [s, w] : [w, s];
          const verdicts = await judgePair({
            judge,
            prompt: prompt('judge-pair', { question, answer_a: A.text, answer_b: B.text }),
            passes: o.pairPasses,
            maxTokens: tokens.judge,
            constrained,
            seed: seed++,
            signal: o.signal,
          });
          for (const v of verdicts) {
            // P(the strong answer is better), whichever position it was shown in.
            const pFirst = v.pA === null ? null : order === 'ab' ? v.pA : 1 - v.pA;
            const winner = pFirst === null || pFirst === 0.5 ? null : pFirst > 0.5 ? s.id : w.id;
            pairJudgments.push({
              first: s.id,
              second: w.id,
              order,
              winner,
              ...(v.constrained ? { pFirst } : {}),
            });
          }
        }
      }
    }

    const judged: JudgedAnswer[] = answers.map((a) => ({
      id: a.id,
      regime: a.regime,
      strength: a.strength,
      scores: scores[a.id] ?? [],
      spreads: spreads[a.id] ?? [],
    }));
    const rel = reliability(judged, pairJudgments);
    const decision = passesThresholds(rel, o.thresholds);
    const q: PracticeQuestion = {
      id: idOf(question),
      question,
      generatorPrompt,
      answers,
      scores,
      scoreJudgments,
      judgeFailures,
      pairJudgments,
      reliability: rel,
      rG: weightedQuestionReward(rel, o.weights),
      kept: decision.keep,
      reasons: decision.reasons,
    };
    questions.push(q);
    emit({ type: 'question-done', question: q });
  }

  return {
    version: 1,
    createdAt: new Date(started).toISOString(),
    model: o.generator.info.name,
    options: {
      questions: o.questions,
      topic: o.topic,
      judgePasses: o.judgePasses,
      pairPasses: o.pairPasses,
      bestOfN: o.bestOfN,
      weights: o.weights,
      thresholds: o.thresholds,
    },
    questions,
    judging,
    proposalsWithoutQuestion,
    totalMs: Date.now() - started,
  };
}

function meanLogprob(tokens: { logprob: number | null }[]): number {
  const lp = tokens.map((t) => t.logprob).filter((x): x is number => x !== null);
  return lp.length ? lp.reduce((a, b) => a + b, 0) / lp.length : -Infinity;
}

/** Summary statistics of a metric over questions (for the judge-consistency report). */
export function distribution(values: number[]): {
  n: number;
  mean: number;
  min: number;
  p25: number;
  median: number;
  p75: number;
  max: number;
} {
  const xs = [...values].sort((a, b) => a - b);
  const q = (p: number) =>
    xs.length ? xs[Math.min(xs.length - 1, Math.floor(p * (xs.length - 1) + 0.5))] : NaN;
  return {
    n: xs.length,
    mean: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN,
    min: xs[0] ?? NaN,
    p25: q(0.25),
    median: q(0.5),
    p75: q(0.75),
    max: xs[xs.length - 1] ?? NaN,
  };
}
