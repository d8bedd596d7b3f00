/**
 * The learning loop, measured: sample solutions of training problems, label their steps
 * automatically (completion-based; by default only on problems that some sample solved), train a
 * process reward model on every label the workspace holds (people's labels outrank automatic
 * ones), export it to ONNX, and evaluate it on problems held out from everything before: step
 * AUROC on held-out automatic labels against the verifier's log-probabilities, and best-of-N
 * selection by the PRM against self-score, majority vote and a single sample. Every phase is
 * resumable: sampling and labelling are journaled per item, training resumes from its latest
 * checkpoint, finished phases are recorded in `loop.json`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MathProblem } from '../eval/datasets';
import { EvalJournal } from '../eval/journal';
import { runItems, type EvalProgress } from '../eval/runner';
import { LabelStore } from '../labels/store';
import type { ModelBackend } from '../model/types';
import { promptsDigest } from '../prove/prompts';
import { prepareTrainingData } from '../trainingData/prepare';
import { runTrainer, type TrainerRun } from '../trainer/run';
import {
  SAMPLING_PLAN,
  labelSolution,
  restoredLabels,
  sampleSolutions,
  type LabelledSolutionSummary,
  type LabellingSettings,
  type SampledSolution,
  type SamplingSettings,
  type UnsolvedPolicy,
} from './solutions';

export type LoopPhase = 'sample' | 'label' | 'train' | 'export' | 'evaluate';

export interface LoopEvent {
  phase: LoopPhase;
  set?: 'train' | 'held-out';
  message?: string;
  progress?: EvalProgress;
}

export interface LoopOptions {
  /** The workspace whose `.stepwise/labels` store trains the PRM (training labels are added there). */
  workspace: string;
  /** The loop's own folder: journals, held-out labels, trainer runs, results. */
  loopDir: string;
  problems: MathProblem[];
  /** The first `trainProblems` problems train; the next `heldOutProblems` are held out. */
  trainProblems: number;
  heldOutProblems: number;
  /**
   * How many of the held-out problems get step labels (the first ones that the `unsolved` policy
   * keeps): step AUROC needs labels, best-of-N needs only the samples, and labelling costs most
   * of the loop's time.
   */
  heldOutLabelProblems?: number;
  generator: ModelBackend;
  sampling: SamplingSettings;
  labelling: LabellingSettings;
  trainer: { python: string; baseModel: string; extraArgs: string[]; env?: Record<string, string> };
  /** Runs the evaluations of the trained PRM: step AUROC on the held-out labels, best-of-N on the held-out samples. */
  evaluate(o: {
    heldOutLabels: string;
    prmDir: string;
    heldOut: { problems: MathProblem[]; samples: SampledSolution[][] };
  }): Promise<Record<string, unknown>>;
  /**
   * Stop once the solutions are sampled and labelled: label on one machine and train on another
   * (a GPU one), or gather labels from several runs into one workspace first.
   */
  labelOnly?: boolean;
  signal?: AbortSignal;
  onEvent?(e: LoopEvent): void;
}

export interface LoopState {
  version: 1;
  train?: { runDir: string; finalDir: string; examples: number; metrics: Record<string, number> };
  export?: { onnxDir: string };
  evaluate?: Record<string, unknown>;
}

export class LoopError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'LoopError';
  }
}

export function readLoopState(file: string): LoopState {
  if (!fs.existsSync(file)) return { version: 1 };
  let state: LoopState;
  try {
    state = JSON.parse(fs.readFileSync(file, 'utf8')) as LoopState;
  } catch (e) {
    throw new LoopError(
      `${file} cannot be read: ${(e as Error).message}.`,
      'Move it aside to start the loop over.',
    );
  }
  // A loop folder carried to another machine keeps its journals but not the trained weights
  // (they are large and machine-local): a phase whose model is gone is done again, and every
  // phase after it with it, rather than failing on a path that no longer exists.
  if (state.export && fs.existsSync(state.export.onnxDir)) return state;
  if (state.train && fs.existsSync(state.train.finalDir)) return { version: 1, train: state.train };
  return { version: 1 };
}

function writeState(file: string, state: LoopState): void {
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

export interface LoopOutcome {
  state: LoopState;
  sampled: { train: number; heldOut: number; correctShare: { train: number; heldOut: number } };
  labelled: { train: LabelledSolutionSummary[]; heldOut: LabelledSolutionSummary[] };
  /** Problems left unlabelled because no sample solved them (`unsolved: 'skip'`). */
  unsolvedSkipped: { train: number; heldOut: number };
}

export async function runLoop(o: LoopOptions): Promise<LoopOutcome> {
  fs.mkdirSync(o.loopDir, { recursive: true });
  const stateFile = path.join(o.loopDir, 'loop.json');
  let state = readLoopState(stateFile);
  const save = (next: LoopState) => writeState(stateFile, (state = next));
  const train = o.problems.slice(0, o.trainProblems);
  const heldOut = o.problems.slice(o.trainProblems, o.trainProblems + o.heldOutProblems);
  if (train.length === 0 || heldOut.length === 0)
    throw new LoopError(
      `The data has ${o.problems.length} problems: not enough for ${o.trainProblems} to train on and ${o.heldOutProblems} held out.`,
      'Give a larger --data file or smaller --train / --held-out.',
    );

  const trainStore = new LabelStore(path.join(o.workspace, '.stepwise', 'labels'));
  const heldOutStore = new LabelStore(path.join(o.loopDir, 'held-out-labels'));

  const sampledTrain = await samplePhase(o, 'train', train);
  const sampledHeldOut = await samplePhase(o, 'held-out', heldOut);
  const trainToLabel = problemsToLabel(train, sampledTrain, o.labelling.unsolved);
  const heldOutToLabel = problemsToLabel(
    heldOut,
    sampledHeldOut,
    o.labelling.unsolved,
    o.heldOutLabelProblems,
  );
  for (const [set, chosen, of] of [
    ['train', trainToLabel, train.length],
    ['held-out', heldOutToLabel, heldOut.length],
  ] as const)
    if (chosen.skipped > 0)
      o.onEvent?.({
        phase: 'label',
        set,
        message: `labelling ${chosen.problems.length} ${set} problems; ${chosen.skipped} of ${of} had no right sample and are skipped (--unsolved label probes them too)`,
      });
  const labelledTrain = await labelPhase(o, 'train', trainToLabel.problems, trainToLabel.sampled, trainStore);
  const labelledHeldOut = await labelPhase(
    o,
    'held-out',
    heldOutToLabel.problems,
    heldOutToLabel.sampled,
    heldOutStore,
  );

  if (!state.train && !o.labelOnly) {
    o.onEvent?.({ phase: 'train', message: 'training the process reward model on the workspace labels' });
    const runDir = path.join(o.loopDir, 'prm');
    const data = await prepareTrainingData('prm', o.workspace, runDir);
    const run = await trainerJob(o, 'prm', [
      '--base-model',
      o.trainer.baseModel,
      '--output-dir',
      runDir,
      ...data.args,
      ...(fs.existsSync(path.join(runDir, 'latest')) ? ['--resume'] : []),
      ...o.trainer.extraArgs,
    ]);
    const done = run.events.find((e) => e.type === 'done');
    if (done?.type !== 'done')
      throw new LoopError(
        `Training the PRM failed: ${run.message}`,
        'Run the loop again to resume from its last checkpoint.',
      );
    save({
      ...state,
      train: { runDir, finalDir: done.output, examples: data.count, metrics: done.metrics },
    });
  }
  if (!state.export && state.train && !o.labelOnly) {
    o.onEvent?.({ phase: 'export', message: 'exporting the PRM to ONNX and checking it against PyTorch' });
    const out = path.join(o.loopDir, 'prm-onnx');
    const run = await trainerJob(o, 'export', [
      '--model',
      state.train.finalDir,
      '--output-dir',
      out,
      '--quantize',
      'none',
    ]);
    const done = run.events.find((e) => e.type === 'done');
    if (done?.type !== 'done')
      throw new LoopError(
        `Exporting the PRM failed: ${run.message}`,
        'Run the loop again to retry the export.',
      );
    save({ ...state, export: { onnxDir: done.onnx ?? out } });
  }
  if (!state.evaluate && state.export && !o.labelOnly) {
    o.onEvent?.({ phase: 'evaluate', message: 'evaluating the PRM on the held-out problems' });
    const heldOutLabels = path.join(o.loopDir, 'held-out-labels', 'labels.jsonl');
    save({
      ...state,
      evaluate: await o.evaluate({
        heldOutLabels,
        prmDir: state.export.onnxDir,
        heldOut: { problems: heldOut, samples: sampledHeldOut },
      }),
    });
  }
  const share = (s: SampledSolution[][]) => {
    const all = s.flat();
    return all.length ? all.filter((x) => x.correct).length / all.length : 0;
  };
  return {
    state,
    sampled: {
      train: sampledTrain.flat().length,
      heldOut: sampledHeldOut.flat().length,
      correctShare: { train: share(sampledTrain), heldOut: share(sampledHeldOut) },
    },
    labelled: { train: labelledTrain, heldOut: labelledHeldOut },
    unsolvedSkipped: { train: trainToLabel.skipped, heldOut: heldOutToLabel.skipped },
  };
}

async function trainerJob(o: LoopOptions, job: string, args: string[]): Promise<TrainerRun> {
  return runTrainer({
    python: o.trainer.python,
    job,
    args,
    env: o.trainer.env,
    signal: o.signal,
    onLog: (line) => o.onEvent?.({ phase: job === 'export' ? 'export' : 'train', message: line }),
  });
}

async function samplePhase(
  o: LoopOptions,
  set: 'train' | 'held-out',
  problems: MathProblem[],
): Promise<SampledSolution[][]> {
  const journal = EvalJournal.open<SampledSolution[]>(
    path.join(o.loopDir, `sample-${set}.jsonl`),
    'loop-sample',
    {
      model: o.generator.info.name,
      plan: SAMPLING_PLAN,
      prompts: promptsDigest(['generator'], o.sampling.promptDir),
      ...o.sampling,
    },
  );
  try {
    const items = problems.map((p, index) => ({ index, id: p.id, input: p }));
    const outcome = await runItems({
      items,
      journal,
      concurrency: 1,
      signal: o.signal,
      evaluate: (item, signal) =>
        sampleSolutions(
          o.generator,
          item.input,
          { ...o.sampling, seed: o.sampling.seed + item.index },
          signal,
        ),
      describe: (r) => `${r.filter((s) => s.correct).length}/${r.length} right`,
      onProgress: (progress) => o.onEvent?.({ phase: 'sample', set, progress }),
    });
    stopIfIncomplete(outcome, `sampling the ${set} problems`);
    return items.map((it) => journal.finished.get(it.id)?.result ?? []);
  } finally {
    journal.close();
  }
}

async function labelPhase(
  o: LoopOptions,
  set: 'train' | 'held-out',
  problems: MathProblem[],
  sampled: SampledSolution[][],
  store: LabelStore,
): Promise<LabelledSolutionSummary[]> {
  const journal = EvalJournal.open<LabelledSolutionSummary>(
    path.join(o.loopDir, `label-${set}.jsonl`),
    'loop-label',
    {
      model: o.generator.info.name,
      plan: SAMPLING_PLAN,
      prompts: promptsDigest(['generator'], o.labelling.promptDir),
      ...labellingFingerprint(o.labelling),
    },
  );
  try {
    const items = problems.flatMap((problem, p) =>
      sampled[p]
        .filter((s) => s.text)
        .map((solution) => ({ index: 0, id: solution.solutionId, input: { problem, solution } })),
    );
    items.forEach((it, i) => (it.index = i));
    const outcome = await runItems({
      items,
      journal,
      concurrency: 1,
      signal: o.signal,
      evaluate: (item, signal) =>
        labelSolution(o.generator, store, item.input.problem, item.input.solution, o.labelling, signal),
      describe: (r) => `${r.labelled}/${r.steps} steps labelled, ${r.negative} negative, ${r.probes} probes`,
      onProgress: (progress) => o.onEvent?.({ phase: 'label', set, progress }),
    });
    stopIfIncomplete(outcome, `labelling the ${set} solutions`);
    const summaries = items
      .map((it) => journal.finished.get(it.id)?.result)
      .filter((r): r is LabelledSolutionSummary => !!r);
    let missing = labelsMissingFromStore(summaries, (await store.read()).records);
    if (missing.length > 0) {
      // A lost store (another machine, a fresh clone) is rebuilt from the journal, not relabelled for hours.
      const inputs = new Map(items.map((it) => [it.id, it.input]));
      const byId = new Map(summaries.map((r) => [r.solutionId, r]));
      let restored = 0;
      for (const id of missing) {
        const input = inputs.get(id);
        const labels =
          input &&
          restoredLabels(input.problem, input.solution, byId.get(id)!, o.labelling, o.generator.info.name);
        if (!labels) continue;
        for (const label of labels) await store.append(label);
        restored++;
      }
      o.onEvent?.({
        phase: 'label',
        set,
        message: `restored the labels of ${restored} of ${missing.length} ${set} solution(s) missing from ${store.dir} from ${path.basename(journal.file)}`,
      });
      missing = labelsMissingFromStore(summaries, (await store.read()).records);
    }
    if (missing.length > 0)
      throw new LoopError(
        `${missing.length} ${set} solution(s) that ${path.basename(journal.file)} records as labelled have no labels in ${store.dir}, and their steps no longer match the journal (first: ${missing[0]}); training would silently use fewer labels.`,
        `Put the label store back, or delete ${journal.file} to label those solutions again.`,
      );
    return summaries;
  } finally {
    journal.close();
  }
}

/**
 * Solutions the label journal counts as labelled whose labels are not in the store: a journal
 * resumed next to a deleted, moved or freshly cloned store (the stores hold problem text from the
 * datasets and stay out of git) would otherwise skip them and train on less than it reports.
 */
export function labelsMissingFromStore(
  summaries: LabelledSolutionSummary[],
  records: { solutionId: string }[],
): string[] {
  const stored = new Set(records.map((r) => r.solutionId));
  return summaries.filter((s) => s.labelled > 0 && !stored.has(s.solutionId)).map((s) => s.solutionId);
}

/**
 * The problems whose samples get step labels, in order, with their samples: all of them, or with
 * `skip` only those that at least one sample solved; at most `limit` problems are kept (counted
 * after the filter, so held-out labels cover as many problems as asked). `skipped` counts the
 * unsolved problems left out before the limit was reached.
 */
export function problemsToLabel(
  problems: MathProblem[],
  sampled: SampledSolution[][],
  unsolved: UnsolvedPolicy,
  limit = problems.length,
): { problems: MathProblem[]; sampled: SampledSolution[][]; skipped: number } {
  const out = { problems: [] as MathProblem[], sampled: [] as SampledSolution[][], skipped: 0 };
  for (let i = 0; i < problems.length && out.problems.length < limit; i++) {
    const samples = sampled[i] ?? [];
    if (unsolved === 'skip' && !samples.some((s) => s.correct)) {
      out.skipped++;
      continue;
    }
    out.problems.push(problems[i]);
    out.sampled.push(samples);
  }
  return out;
}

/**
 * The labelling settings as the label journals record them. Journals written before `unsolved`
 * existed labelled every problem and do not name it, so `label` is left out and they resume.
 */
export function labellingFingerprint(s: LabellingSettings): Record<string, unknown> {
  const { unsolved, ...rest } = s;
  return unsolved === 'label' ? rest : { ...rest, unsolved };
}

function stopIfIncomplete(
  outcome: { cancelled: boolean; stoppedBy: { message: string; hint?: string } | null },
  what: string,
): void {
  if (outcome.cancelled)
    throw new LoopError(
      `The loop was cancelled while ${what}.`,
      'Run it again to continue where it stopped.',
    );
  if (outcome.stoppedBy)
    throw new LoopError(
      `The loop stopped while ${what}: ${outcome.stoppedBy.message}`,
      outcome.stoppedBy.hint ?? 'Run it again to retry.',
    );
}
