/**
 * One evaluation run, whatever it measures: open (or resume) the journal, evaluate the items it
 * does not hold, and write the results document and its HTML report from every finished item.
 * The results document is rewritten after the run from the journal alone, so it always reflects
 * exactly the items on disk — a killed run's next attempt ends with the same document as an
 * uninterrupted run.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { saveJsonAtomically } from '../files';
import { EvalJournal } from './journal';
import { runItems, resultsFor, type EvalItem, type EvalProgress } from './runner';
import { mean } from '../math/stats';
import * as fsp from 'node:fs/promises';

export type EvalKind = 'prove' | 'tests' | 'prm';

export const EVAL_RESULT_SCHEMA = 'stepwise.eval-result';

/** The results document (`<out>.json`); per-item records are in the journal beside it. */
export interface EvalResult<M = unknown> {
  schema: typeof EVAL_RESULT_SCHEMA;
  version: 1;
  kind: EvalKind;
  /** The command line that made it, to rerun or resume it. */
  command: string;
  createdAt: string;
  updatedAt: string;
  /** Whether every selected item has finished. */
  complete: boolean;
  dataset: { path: string; format: string; selected: number; available: number; badLines: number };
  /** The model (or step scorer) evaluated. */
  model: { name: string; backend: string; device: string };
  /** The settings that decide the results; a journal resumes only with the same ones. */
  settings: Record<string, unknown>;
  items: { selected: number; finished: number; failed: { id: string; message: string }[] };
  timing: {
    /** Mean seconds per finished item (model and sandbox work of that item). */
    secondsPerItem: number | null;
    /** Seconds of item work over all finished items, this run and earlier ones. */
    itemSeconds: number;
    /** Mean CPU seconds of this process per finished item (model threads; sandbox processes not counted). */
    cpuSecondsPerItem: number | null;
    /** Where it ran; `loadAverage` (1 min, when the results were written) tells how shared the machine was. */
    machine: {
      cpu: string;
      cores: number;
      memoryGiB: number;
      node: string;
      platform: string;
      loadAverage: number;
    };
  };
  metrics: M;
  files: { journal: string; report: string };
}

export interface OutputPaths {
  result: string;
  journal: string;
  report: string;
}

/** `<dir>/x.json` → the journal `x.items.jsonl` and the report `x.html` beside it. */
export function outputPaths(resultFile: string): OutputPaths {
  const result = path.resolve(resultFile.endsWith('.json') ? resultFile : `${resultFile}.json`);
  const stem = result.slice(0, -'.json'.length);
  return { result, journal: `${stem}.items.jsonl`, report: `${stem}.html` };
}

/** Where an evaluation writes when no --out is given: `.stepwise/eval/<kind>-<data file stem>.json`. */
export function defaultResultFile(workspace: string, kind: EvalKind, dataFile: string): string {
  const stem = path
    .basename(dataFile)
    .replace(/\.gz$/, '')
    .replace(/\.[^.]+$/, '');
  return path.join(workspace, '.stepwise', 'eval', `${kind}-${stem.replace(/[^\w.-]+/g, '_')}.json`);
}

export interface EvaluationSpec<I, R, M> {
  kind: EvalKind;
  command: string;
  out: OutputPaths;
  fresh?: boolean;
  dataset: Omit<EvalResult['dataset'], 'selected'>;
  model: EvalResult['model'];
  settings: Record<string, unknown>;
  items: EvalItem<I>[];
  concurrency: number;
  signal?: AbortSignal;
  evaluate(item: EvalItem<I>, signal?: AbortSignal): Promise<R>;
  describe(result: R): string;
  summarize(results: R[]): M;
  onProgress?(progress: EvalProgress): void;
  /** Things worth telling the user (a repaired journal, skipped lines). */
  onNotice?(message: string): void;
  /** Writes the HTML report of a results document. */
  renderReport(result: EvalResult): string;
}

export interface EvaluationOutcome<M> {
  result: EvalResult<M>;
  cancelled: boolean;
  stoppedBy: { message: string; hint?: string } | null;
}

export async function runEvaluation<I, R, M>(spec: EvaluationSpec<I, R, M>): Promise<EvaluationOutcome<M>> {
  // Settings left unset are left out, so the document reads the same before and after a JSON round trip.
  const settings = JSON.parse(JSON.stringify(spec.settings)) as Record<string, unknown>;
  const fingerprint = { kind: spec.kind, data: spec.dataset.path, model: spec.model.name, ...settings };
  const journal = EvalJournal.open<R>(spec.out.journal, spec.kind, fingerprint, { fresh: spec.fresh });
  for (const r of journal.repairs) spec.onNotice?.(`${path.basename(spec.out.journal)}: ${r}`);
  const done = spec.items.filter((it) => journal.finished.has(it.id)).length;
  if (done)
    spec.onNotice?.(
      `resuming: ${done} of ${spec.items.length} item(s) already finished in ${spec.out.journal}`,
    );
  try {
    const outcome = await runItems({
      items: spec.items,
      journal,
      concurrency: spec.concurrency,
      signal: spec.signal,
      evaluate: spec.evaluate,
      describe: spec.describe,
      onProgress: spec.onProgress,
    });
    const entries = resultsFor(spec.items, journal);
    const failed = spec.items
      .map((it) => journal.failed.get(it.id))
      .filter((e) => !!e)
      .map((e) => ({ id: e.id, message: e.error?.message ?? 'failed' }));
    const now = new Date().toISOString();
    const result: EvalResult<M> = {
      schema: EVAL_RESULT_SCHEMA,
      version: 1,
      kind: spec.kind,
      command: spec.command,
      createdAt: journal.header.createdAt,
      updatedAt: now,
      complete: entries.length === spec.items.length,
      dataset: { ...spec.dataset, selected: spec.items.length },
      model: spec.model,
      settings,
      items: { selected: spec.items.length, finished: entries.length, failed },
      timing: {
        secondsPerItem: entries.length ? mean(entries.map((e) => e.ms / 1000)) : null,
        itemSeconds: entries.reduce((s, e) => s + e.ms / 1000, 0),
        cpuSecondsPerItem: mean(entries.filter((e) => e.cpuMs !== undefined).map((e) => e.cpuMs! / 1000)),
        machine: machine(),
      },
      metrics: spec.summarize(entries.map((e) => e.result as R)),
      files: { journal: spec.out.journal, report: spec.out.report },
    };
    await saveJsonAtomically(spec.out.result, result);
    await writeAtomically(spec.out.report, spec.renderReport(result));
    return { result, cancelled: outcome.cancelled, stoppedBy: outcome.stoppedBy };
  } finally {
    journal.close();
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(temp, text);
  await fsp.rename(temp, file);
}

function machine(): EvalResult['timing']['machine'] {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAverage: Math.round(os.loadavg()[0] * 10) / 10,
  };
}
