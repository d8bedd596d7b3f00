import { UsageError } from './command';
import { LearnedStepScorer } from '../core/judgment/learnedStepScorer';
import { loadStepHead, type StepHead } from '../core/judgment/stepHead';
import { TokenJournal } from '../core/judgment/tokenJournal';
import type { ModelBackend } from '../core/model/types';
import { loadPrompt, renderPrompt } from '../core/prove/prompts';

/** `--step-scorer FILE`: read before the model loads, so a bad file is refused at once. */
export function readStepHead(file: string | undefined): StepHead | undefined {
  if (!file) return undefined;
  try {
    return loadStepHead(file);
  } catch (e) {
    throw new UsageError(`--step-scorer: ${(e as Error).message}`);
  }
}

/** The head over the generator's own log-probabilities, scored as answers to the generator's prompt. */
export function learnedStepScorer(
  model: ModelBackend,
  head: StepHead,
  promptsDir?: string,
  /** Teacher-forced passes kept by `judgment train-steps`: solutions found there are not scored again. */
  journalFile?: string,
): LearnedStepScorer {
  if (head.model !== model.info.name)
    throw new UsageError(
      `--step-scorer: it was fitted on ${head.model}, but the generator is ${model.info.name}; train one on this model with \`stepwise judgment train-steps\`.`,
    );
  const template = loadPrompt('generator', promptsDir);
  return new LearnedStepScorer(
    model,
    head,
    (problem) => [{ role: 'user', content: renderPrompt(template, { problem }) }],
    journalFile ? new TokenJournal(journalFile, model.info.name) : undefined,
  );
}
