import { UsageError } from './command';
import { loadLearnedScorer, type LearnedScorer } from '../core/judgment/learnedScorer';
import type { ModelBackend } from '../core/model/types';

/** `--learned-scorer FILE`: read before the model loads, so a bad file is refused at once. */
export function readLearnedScorer(file: string | undefined): LearnedScorer | undefined {
  if (!file) return undefined;
  try {
    return loadLearnedScorer(file);
  } catch (e) {
    throw new UsageError(`--learned-scorer: ${(e as Error).message}`);
  }
}

/** A head reads one model's log-probabilities: under another model its score means nothing. */
export function requireScorerModel(scorer: LearnedScorer | undefined, model: ModelBackend): void {
  if (scorer && scorer.model !== model.info.name)
    throw new UsageError(
      `--learned-scorer: it was fitted on ${scorer.model}, but the generator is ${model.info.name}; train one on this model with \`stepwise judgment train\`.`,
    );
}
