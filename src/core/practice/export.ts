import * as fs from 'node:fs';
import * as path from 'node:path';
import { dpoPairs, generatorRewards, type PracticeSet } from './loop';

/**
 * Writes the trainer's inputs beside a practice set: `dpo-pairs.jsonl` (prompt, chosen, rejected
 * and the question's reliability, for the `dpo` job) and `generator-rewards.jsonl` (R_G of every
 * proposed question, for the question generator's `grpo` job).
 */
export function exportPracticeSet(
  set: PracticeSet,
  outDir: string,
): { dpo: string; rewards: string; pairs: number } {
  fs.mkdirSync(outDir, { recursive: true });
  const pairs = dpoPairs(set);
  const dpo = path.join(outDir, 'dpo-pairs.jsonl');
  const rewards = path.join(outDir, 'generator-rewards.jsonl');
  fs.writeFileSync(dpo, pairs.map((p) => JSON.stringify(p)).join('\n') + (pairs.length ? '\n' : ''));
  fs.writeFileSync(
    rewards,
    generatorRewards(set)
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  return { dpo, rewards, pairs: pairs.length };
}
