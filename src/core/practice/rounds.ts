import { generatePracticeSet, type PracticeOptions } from './loop';
import type { PracticeSet } from './types';

/** Seeds one round may use (a question takes a handful); the next round starts past them. */
const SEEDS_PER_ROUND = 10_000;

export interface PracticeRoundsOptions extends PracticeOptions {
  rounds: number;
  /** Called after each round (1-based), before the next starts: saving a set here keeps it if a later round fails. */
  onRound?: (round: number, set: PracticeSet) => void | Promise<void>;
}

/**
 * The iterative loop of seed 001, round after round: propose → solve → judge → keep. The questions a
 * round keeps (the reliably judged ones, highest R_G first) are shown to the next round's generator
 * as examples, so the task distribution moves toward questions that can be judged; each round draws
 * fresh samples from its own seeds. Training the generator on R_G (the trainer's
 * `question-generator` job on a round's `generator-rewards.jsonl`) happens outside this loop: the
 * trained model is a PyTorch checkpoint, not the ONNX model the loop runs.
 */
export async function runPracticeRounds(o: PracticeRoundsOptions): Promise<PracticeSet[]> {
  const sets: PracticeSet[] = [];
  const kept: { question: string; rG: number }[] = [];
  const firstSeed = o.seed ?? 1;
  for (let round = 1; round <= o.rounds; round++) {
    o.signal?.throwIfAborted();
    const examples = [...kept].sort((a, b) => b.rG - a.rG).map((k) => k.question);
    const set = await generatePracticeSet({
      ...o,
      seed: firstSeed + (round - 1) * SEEDS_PER_ROUND,
      seedProblems: [...examples, ...(o.seedProblems ?? [])],
    });
    kept.push(...set.questions.filter((q) => q.kept).map((q) => ({ question: q.question, rG: q.rG })));
    await o.onRound?.(round, set);
    sets.push(set);
  }
  return sets;
}
