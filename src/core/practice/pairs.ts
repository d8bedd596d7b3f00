/**
 * What a practice set gives the trainer: DPO pairs from the judged preferences of its kept
 * questions, and the reliability reward R_G of every proposed question.
 */
import { groupPairs, majorityWinner } from './metrics';
import { practicePrompt as prompt } from './prompts';
import type { PracticeSet } from './types';

export interface DpoPair {
  prompt: string;
  chosen: string;
  rejected: string;
  question_id: string;
  r_cons: number;
  r_sep: number | null;
  r_stab: number;
  r_g: number;
}

/** Judged preferences of the kept questions as DPO pairs (majority winner of each answer pair). */
export function dpoPairs(set: PracticeSet): DpoPair[] {
  const pairs: DpoPair[] = [];
  for (const q of set.questions.filter((x) => x.kept)) {
    const text = new Map(q.answers.map((a) => [a.id, a.text]));
    for (const judgments of groupPairs(q.pairJudgments).values()) {
      const winner = majorityWinner(judgments);
      if (!winner) continue;
      const loser = judgments[0].first === winner ? judgments[0].second : judgments[0].first;
      pairs.push({
        prompt: prompt('solver', { question: q.question }),
        chosen: text.get(winner) ?? '',
        rejected: text.get(loser) ?? '',
        question_id: q.id,
        r_cons: q.reliability.rCons,
        r_sep: q.reliability.rSep,
        r_stab: q.reliability.rStab,
        r_g: q.rG,
      });
    }
  }
  return pairs;
}

/** Every proposed question with its reliability reward R_G, for the question generator's GRPO. */
export function generatorRewards(
  set: PracticeSet,
): { prompt: string; completion: string; reward: number; kept: boolean }[] {
  return set.questions.map((q) => ({
    prompt: q.generatorPrompt,
    completion: `Problem: ${q.question}`,
    reward: q.rG,
    kept: q.kept,
  }));
}
