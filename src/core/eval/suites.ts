/**
 * The three evaluations as one call each, for the CLI (and through it the editor): read the data,
 * pick the items, and run them through `runEvaluation` with the right settings, item function,
 * summary and report. Models come in opened; whoever opened them disposes of them.
 */
import type { Calibrator } from '../judgment/calibrator';
import * as path from 'node:path';
import type { ModelBackend } from '../model/types';
import type { ProveModels, ProveOptionsInput } from '../prove/prove';
import type { StepScorer } from '../model/stepScorer';
import { PROMPT_NAMES, promptsDigest } from '../prove/prompts';
import { chainDigest, loadStageChain } from '../tests/stages';
import {
  MISSING_DATA_HINTS,
  readCodeTasks,
  readMathProblems,
  type CodeTask,
  type MathProblem,
} from './datasets';
import { runEvaluation, type EvalKind, type EvaluationOutcome, type OutputPaths } from './evaluation';
import { pythonMutants, type Mutant } from './mutants';
import {
  describePrmItem,
  evaluateLabelledSolution,
  readStepLabels,
  summarizePrm,
  type PrmMetrics,
} from './prmEval';
import { splitOf, stableHash } from '../judgment/split';
import { describeProveItem, evaluateMathProblem } from './proveEval';
import { summarizeProve, type ProveMetrics } from './proveSummary';
import { renderReport } from './report/html';
import type { EvalItem, EvalProgress } from './runner';
import { describeTestsItem, evaluateCodeTask, type TestsEvalSettings } from './testsEval';
import { summarizeTests, type TestsMetrics } from './testsSummary';

export interface CommonRun {
  command: string;
  out: OutputPaths;
  fresh?: boolean;
  /** Evaluate only the first `limit` items of the data (after `offset`). */
  limit?: number;
  /** Skip the first `offset` items: a held-out slice after a training one. Indices stay dataset positions. */
  offset?: number;
  concurrency: number;
  signal?: AbortSignal;
  onProgress?(p: EvalProgress): void;
  onNotice?(message: string): void;
}

function select<T extends { id: string }>(all: T[], limit?: number, offset = 0): EvalItem<T>[] {
  return all
    .slice(offset, offset + (limit ?? all.length))
    .map((input, i) => ({ index: offset + i, id: input.id, input }));
}

function modelOf(model: ModelBackend) {
  return { name: model.info.name, backend: model.info.backend, device: model.info.device };
}

const report = (r: Parameters<typeof renderReport>[0]) => renderReport(r);

export async function evalProve(
  run: CommonRun & {
    data: string;
    models: ProveModels;
    /** Evaluates this calibrator instead of fitting one on the fit side. */
    calibrator?: { calibrator: Calibrator; file: string };
    /** Keep each candidate's Solution text in the journal (for signals fitted after the run). */
    keepTexts?: boolean;
    options: ProveOptionsInput & {
      seed: number;
      candidates: number;
      maxIterations: number;
      constrained: boolean;
      metaVerify: boolean;
    };
  },
): Promise<EvaluationOutcome<ProveMetrics>> {
  const { items: problems, problems: bad } = readMathProblems(run.data, MISSING_DATA_HINTS.prove);
  const items = select<MathProblem>(problems, run.limit, run.offset);
  const verifier = run.models.verifier ?? run.models.generator;
  return runEvaluation({
    kind: 'prove' as EvalKind,
    ...commonSpec(run),
    dataset: {
      path: path.resolve(run.data),
      format: 'math',
      available: problems.length,
      badLines: bad.length,
    },
    model: modelOf(run.models.generator),
    settings: {
      ...run.options,
      prompts: promptsDigest(PROMPT_NAMES, run.options.promptDir),
      verifier: verifier.info.name,
      stepScorer: run.models.stepScorer?.info ?? { kind: 'verifier-logprob', name: verifier.info.name },
      // Only when on, so journals written before the flag existed still resume; a journal with
      // texts is never resumed without them (its items would lack what the fit needs).
      ...(run.keepTexts ? { keepTexts: true } : {}),
      // Which head scored the candidates: a journal is never resumed under another one.
      ...(run.models.learnedScorer
        ? { learnedScorer: stableHash(JSON.stringify(run.models.learnedScorer)).toString(16) }
        : {}),
    },
    items,
    evaluate: (item, signal) =>
      evaluateMathProblem(item.input, item.index, run.models, run.options, signal, run.keepTexts),
    describe: describeProveItem,
    summarize: (results) =>
      summarizeProve(results, run.calibrator, {
        generator: run.models.generator.info.name,
        verifier: verifier.info.name,
      }),
    renderReport: report,
  });
}

export async function evalTests(
  run: CommonRun & {
    data: string;
    model: ModelBackend;
    settings: TestsEvalSettings;
    mutantsPerFunction: number;
  },
): Promise<EvaluationOutcome<TestsMetrics>> {
  const { items: tasks, problems: bad, format } = readCodeTasks(run.data, MISSING_DATA_HINTS.tests);
  const items = select<CodeTask>(tasks, run.limit, run.offset);
  // Read once: every item reasons with the definitions whose digest the fingerprint records.
  const chain = loadStageChain(run.settings.stagesFile);
  // Mutants depend only on the reference code, so they are made once, up front, for every item.
  const mutants: Record<string, Mutant[]> = await pythonMutants(
    Object.fromEntries(items.map((it) => [it.id, it.input.referenceCode])),
    { limit: run.mutantsPerFunction, pythonPath: run.settings.pythonPath, signal: run.signal },
  );
  return runEvaluation({
    kind: 'tests' as EvalKind,
    ...commonSpec(run),
    dataset: { path: path.resolve(run.data), format, available: tasks.length, badLines: bad.length },
    model: modelOf(run.model),
    settings: {
      ...run.settings,
      pythonPath: undefined,
      // The file's content is what decides the results: its digest below, not its path.
      stagesFile: undefined,
      mutantsPerFunction: run.mutantsPerFunction,
      prompts: chainDigest(chain),
    },
    items,
    evaluate: (item, signal) =>
      evaluateCodeTask(item.input, {
        model: run.model,
        settings: run.settings,
        mutants: mutants[item.id] ?? [],
        chain,
        signal,
      }),
    describe: describeTestsItem,
    summarize: summarizeTests,
    renderReport: report,
  });
}

export async function evalPrm(
  run: CommonRun & {
    labels: string;
    scorer: StepScorer;
    threshold: number;
    /** Where the scorer runs (the verifier model's backend and device, or a PRM on the CPU). */
    device: string;
    /** Only the problems on the held-out side of the split a learned head was fitted beside. */
    heldOutOnly?: boolean;
  },
): Promise<EvaluationOutcome<PrmMetrics>> {
  const read = readStepLabels(run.labels);
  const { format, problems: bad } = read;
  const solutions = run.heldOutOnly
    ? read.solutions.filter((s) => splitOf(s.problem) === 'held-out')
    : read.solutions;
  const items = select(solutions, run.limit, run.offset);
  return runEvaluation({
    kind: 'prm' as EvalKind,
    ...commonSpec(run),
    dataset: { path: path.resolve(run.labels), format, available: solutions.length, badLines: bad.length },
    model: { name: run.scorer.info.name, backend: run.scorer.info.kind, device: run.device },
    settings: {
      scorer: run.scorer.info,
      threshold: run.threshold,
      ...(run.heldOutOnly ? { split: 'held-out' } : {}),
    },
    items,
    evaluate: (item, signal) => evaluateLabelledSolution(item.input, run.scorer, run.threshold, signal),
    describe: describePrmItem,
    summarize: (results) => summarizePrm(results, run.threshold),
    renderReport: report,
  });
}

function commonSpec(run: CommonRun) {
  return {
    command: run.command,
    out: run.out,
    fresh: run.fresh,
    concurrency: run.concurrency,
    signal: run.signal,
    onProgress: run.onProgress,
    onNotice: run.onNotice,
  };
}
