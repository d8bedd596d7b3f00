import { generatePracticeSet, type PracticeOptions } from './loop';
import type { ModelBackend } from '../model/types';
import type { PracticeSet } from './types';

/** Seeds one round may use (a question takes a handful); the next round starts past them. */
const SEEDS_PER_ROUND = 10_000;

export interface PracticeRoundsOptions extends PracticeOptions {
  rounds: number;
  /** Called after each round (1-based), before the next starts: saving a set here keeps it if a later round fails. */
  onRound?: (round: number, set: PracticeSet) => void | Promise<void>;
  /**
   * Called after each round that has a next one (after `onRound`), with the question generator
   * that proposed it: returns the question generator of the next round (the one retrained on this
   * round's R_G), or undefined to keep it. Only the proposing changes hands: the solver and the
   * judge stay the models given, so R_G keeps measuring questions against the same judge.
   */
  nextGenerator?: (
    round: number,
    set: PracticeSet,
    generator: ModelBackend,
  ) => Promise<ModelBackend | undefined>;
}

/**
 * The iterative loop of seed 001, round after round: propose → solve → judge → keep. The questions a
 * round keeps (the reliably judged ones, highest R_G first) are shown to the next round's generator
 * as examples, so the task distribution moves toward questions that can be judged; each round draws
 * fresh samples from its own seeds. With `nextGenerator`, the question generator is also replaced
 * between rounds: the CLI's `--retrain-generator` trains it on the round's `generator-rewards.jsonl`
 * (the trainer's `question-generator` job), exports it to ONNX and proposes the next round with it.
 */
export async function runPracticeRounds(o: PracticeRoundsOptions): Promise<PracticeSet[]> {
  const sets: PracticeSet[] = [];
  const kept: { question: string; rG: number }[] = [];
  const firstSeed = o.seed ?? 1;
  // The solver and the judge are the models given, whoever proposes.
  const solver = o.solver ?? o.generator;
  const judge = o.judge ?? o.generator;
  let generator = o.generator;
  try {
    for (let round = 1; round <= o.rounds; round++) {
      o.signal?.throwIfAborted();
      const examples = [...kept].sort((a, b) => b.rG - a.rG).map((k) => k.question);
      const set = await generatePracticeSet({
        ...o,
        generator,
        solver,
        judge,
        seed: firstSeed + (round - 1) * SEEDS_PER_ROUND,
        seedProblems: [...examples, ...(o.seedProblems ?? [])],
      });
      kept.push(...set.questions.filter((q) => q.kept).map((q) => ({ question: q.question, rG: q.rG })));
      await o.onRound?.(round, set);
      sets.push(set);
      if (round < o.rounds && o.nextGenerator) {
        const next = await o.nextGenerator(round, set, generator);
        if (next && next !== generator) {
          // A generator this loop was handed by nextGenerator is its to dispose; the caller's is not.
          if (generator !== o.generator) await generator.dispose();
          generator = next;
        }
      }
    }
  } finally {
    if (generator !== o.generator) await generator.dispose();
  }
  return sets;
}
