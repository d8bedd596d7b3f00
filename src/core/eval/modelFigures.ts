import { isSmallSample } from '../math/sampleSize';
import { describeFirstProblems, describeSpeed } from '../model/ladder/catalog';
import { downloadBytes, type LadderModel } from '../model/ladder/catalogTypes';
import { formatBytes } from '../model/ladder/progress';
import type { EvalResult } from './evaluation';

/** What the evaluations measured for one model: the figures a model picker may quote. */
export interface ModelFigures {
  /** Final answers right on the prove evaluation (k of n), with its dataset's file name. */
  proveAccuracy: { k: number; n: number; dataset: string } | null;
  /** Mean wall seconds per prove item, and the machine it was measured on. */
  secondsPerProblem: { seconds: number; cores: number } | null;
}

interface RateLike {
  k: number;
  n: number;
}
const isRate = (v: unknown): v is RateLike =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as RateLike).k === 'number' &&
  typeof (v as RateLike).n === 'number';

/**
 * The figures of `modelName` from evaluation results: one source for every view that quotes a
 * model's accuracy or speed, so the picker and the evaluation report cannot disagree. The complete
 * prove evaluation with the most items wins (a quick 16-problem run made later is not the model's
 * figure), the newer on a tie; null figures when there is none.
 */
export function modelFigures(results: readonly EvalResult[], modelName: string): ModelFigures {
  const prove = largestFirst(
    results.filter((r) => r.kind === 'prove' && r.model.name === modelName && r.complete),
  )[0];
  if (!prove) return { proveAccuracy: null, secondsPerProblem: null };
  const accuracy = (prove.metrics as { accuracy?: unknown }).accuracy;
  const { secondsPerItem, machine } = prove.timing;
  const dataset = prove.dataset.path.split(/[\\/]/).pop() ?? prove.dataset.path;
  return {
    proveAccuracy: isRate(accuracy) ? { k: accuracy.k, n: accuracy.n, dataset } : null,
    secondsPerProblem: secondsPerItem === null ? null : { seconds: secondsPerItem, cores: machine.cores },
  };
}

/**
 * Evaluations in the order a person should meet them: the most items first (the most
 * representative figure), the newer first among equals. The picker quotes the first, and the
 * report's list starts with it.
 */
export function largestFirst<T extends Pick<EvalResult, 'items' | 'updatedAt'>>(results: readonly T[]): T[] {
  return [...results].sort(
    (a, b) => b.items.finished - a.items.finished || b.updatedAt.localeCompare(a.updatedAt),
  );
}

/**
 * "7 of 100 MATH-500.jsonl answers right · 45 s per problem on 2 CPU cores", or null. An accuracy
 * from fewer than SMALL_SAMPLE items says "(few items)", as the report does.
 */
export function describeFigures(f: ModelFigures): string | null {
  const parts: string[] = [];
  if (f.proveAccuracy) {
    const { k, n, dataset } = f.proveAccuracy;
    parts.push(`${k} of ${n} ${dataset} answers right${isSmallSample(n) ? ' (few items)' : ''}`);
  }
  if (f.secondsPerProblem)
    parts.push(
      `${Math.round(f.secondsPerProblem.seconds)} s per problem${f.secondsPerProblem.cores ? ` on ${f.secondsPerProblem.cores} CPU cores` : ''}`,
    );
  return parts.length ? `${parts.join(' · ')} (shipped evaluation)` : null;
}

/**
 * The model picker's detail line for a ladder model. The figures lead (the picker cuts a long line
 * short): the shipped evaluation's when there is one, else the catalog's first-problems smoke test
 * with its n and the few-items mark, never a bare "4 of 5" that reads like a measurement. The
 * catalog's decode speed is quoted only where no evaluation timed the model.
 */
export function ladderModelDetail(
  model: LadderModel,
  figures: ModelFigures,
  onDisk: { diskBytes?: number },
): string {
  const measured = describeFigures(figures);
  const size = onDisk.diskBytes
    ? `${formatBytes(onDisk.diskBytes)} on disk`
    : `${formatBytes(downloadBytes(model))} to download`;
  const facts = [
    size,
    `${model.memoryGb} GB memory`,
    ...(figures.secondsPerProblem ? [] : [describeSpeed(model)]),
  ];
  return `${measured ?? describeFirstProblems(model)}. ${model.goodFor} ${facts.join(' · ')}`;
}

/**
 * Whether a shipped judging calibrator was fitted on this model's own proofs (docs/judgment.md),
 * in the few words a picker row has room for; null when unknown, so nothing is claimed.
 */
export function calibrationFact(calibrated: boolean | undefined): string | null {
  if (calibrated === undefined) return null;
  return calibrated ? 'P(correct) calibrated' : 'P(correct) not calibrated for it';
}
