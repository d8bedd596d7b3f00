/**
 * Training data: what the workspace's step labels, saved Prove runs and practice sets become for
 * each training job. It combines three features by nature, so it is a composite above them
 * (ARCHITECTURE.md); the trainer's client (`core/trainer/`) only runs the job on the files it writes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LabelStore, exportableSolutions, toTrlStepwise } from '../labels/index';
import { loadRuns } from '../prove/runStore';
import { isDataRun } from '../runs/dataRun';
import { runsDir } from '../runs/folder';

export type TrainingJob = 'prm' | 'orm' | 'verifier' | 'sft-format' | 'grpo' | 'dpo' | 'question-generator';

export interface PreparedData {
  /** Trainer flags that point at the data (e.g. `--data <file>`). */
  args: string[];
  /** Examples written (0 when the trainer builds its own from a given file). */
  count: number;
  /** Files skipped on the way, with why: reported, never deleted. */
  skipped: string[];
}

/** A user-facing error: what is missing and what to do. */
export class NoTrainingDataError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'NoTrainingDataError';
  }
}

/** The run folder of one training job: `.stepwise/training/<timestamp>-<job>/`. */
export function trainingRunDir(workspace: string, job: string, now = new Date()): string {
  return path.join(workspace, '.stepwise', 'training', `${now.toISOString().replace(/[:.]/g, '-')}-${job}`);
}

function writeJsonl(file: string, rows: unknown[]): void {
  fs.writeFileSync(file, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
}

/**
 * Writes the job's training data from the workspace's `.stepwise/` into the run folder:
 * step labels in TRL's stepwise format (prm), the problems of saved Prove runs (grpo), or the
 * practice sets' DPO pairs (dpo). sft-format builds its examples from a MATH-500 file it is given.
 */
export async function prepareTrainingData(
  job: TrainingJob,
  workspace: string,
  runDir: string,
  opts: { mathData?: string } = {},
): Promise<PreparedData> {
  fs.mkdirSync(runDir, { recursive: true });
  const stepwise = path.join(workspace, '.stepwise');
  // orm reads the same step labels as prm and keeps one label per solution (its outcome).
  if (job === 'prm' || job === 'orm') {
    const store = await new LabelStore(path.join(stepwise, 'labels')).read();
    const { solutions, skipped: gaps } = exportableSolutions(store.records);
    // Ratings as written (1 / 0 / −1): the two-class head reads a neutral step as correct, as
    // before, and `--label-classes 3` keeps neutral apart.
    const rows = toTrlStepwise(solutions, 'keep');
    if (!rows.length)
      throw new NoTrainingDataError(
        'No labelled solutions yet, so there is nothing to train a process reward model on.',
        'Label some steps first (Ctrl+Alt+= / 0 / - in a proof document, or the Prove panel).',
      );
    const file = path.join(runDir, 'labels.trl.jsonl');
    writeJsonl(file, rows);
    const skipped = [
      ...store.repairs,
      ...store.corrupt.map((c) => `labels.jsonl line ${c.line}: ${c.reason}`),
      ...gaps.map((g) => `solution ${g.solutionId}: ${g.reason}`),
    ];
    return { args: ['--data', file], count: rows.length, skipped };
  }
  if (job === 'verifier') return verifierData(workspace, stepwise, runDir);
  if (job === 'grpo') {
    const { runs, skipped } = await loadRuns(runsDir(workspace));
    // Cancelled runs are kept on disk but are no training data (see isDataRun).
    const problems = [
      ...new Set(
        runs
          .filter((r) => isDataRun(r.run))
          .map((r) => r.run.problem.text.trim())
          .filter(Boolean),
      ),
    ];
    if (!problems.length)
      throw new NoTrainingDataError(
        'No saved Prove runs yet: their problems are the GRPO training set.',
        'Run "Stepwise: Prove and Self-Verify" on a few problems first.',
      );
    const file = path.join(runDir, 'problems.jsonl');
    writeJsonl(
      file,
      problems.map((problem) => ({ problem })),
    );
    return {
      args: ['--data', file],
      count: problems.length,
      skipped: skipped.map((s) => `${s.file}: ${s.error}`),
    };
  }
  if (job === 'dpo' || job === 'question-generator') {
    // Both come from the practice sets: judged pairs for the solver, R_G of every proposed question for the generator.
    const name = job === 'dpo' ? 'dpo-pairs.jsonl' : 'generator-rewards.jsonl';
    const { lines, skipped } = practiceRows(path.join(stepwise, 'practice'), name);
    if (!lines.length)
      throw new NoTrainingDataError(
        job === 'dpo'
          ? 'No DPO pairs yet: they come from the kept questions of practice sets.'
          : 'No question rewards yet: every practice set writes the R_G of the questions it proposed.',
        'Run "Stepwise: Generate Practice Set" first.',
      );
    const file = path.join(runDir, name);
    writeJsonl(file, lines);
    return { args: ['--data', file], count: lines.length, skipped };
  }
  if (!opts.mathData || !fs.existsSync(opts.mathData))
    throw new NoTrainingDataError(
      'sft-format needs a MATH-500-style JSONL file (problem, solution, answer).',
      'Choose the file when asked.',
    );
  return { args: ['--math-data', opts.mathData], count: 0, skipped: [] };
}

/**
 * The verifier job's scored proofs: every candidate of a saved Prove run whose problem has a
 * reference answer, labelled right or wrong by the extension's answer check, and every labelled
 * solution with a step the user marked wrong (−1), labelled wrong. A proof the user labelled wins
 * over the answer check of the same proof. A solution whose labelled steps are all right is left
 * out: its labels may stop before its last step, so they do not say the whole proof is right.
 */
async function verifierData(workspace: string, stepwise: string, runDir: string): Promise<PreparedData> {
  const rows = new Map<string, { problem: string; proof: string; label: boolean }>();
  const add = (problem: string, proof: string, label: boolean) => {
    if (problem.trim() && proof.trim()) rows.set(`${problem}\u0000${proof}`, { problem, proof, label });
  };
  const { runs, skipped: unreadable } = await loadRuns(runsDir(workspace));
  for (const { run } of runs.filter((r) => isDataRun(r.run)))
    for (const iteration of run.iterations)
      for (const c of iteration.candidates)
        if (c.answerCheck) add(run.problem.text, c.parsed.proof, c.answerCheck.matches);
  const store = await new LabelStore(path.join(stepwise, 'labels')).read();
  const { solutions } = exportableSolutions(store.records);
  for (const s of solutions) {
    const wrong = s.steps.findIndex((step) => step.rating === -1);
    if (wrong >= 0)
      add(
        s.problemText,
        s.steps
          .slice(0, wrong + 1)
          .map((step) => step.text)
          .join('\n\n'),
        false,
      );
  }
  if (!rows.size)
    throw new NoTrainingDataError(
      'No scored proofs yet: the verifier learns from proofs known to be right or wrong.',
      'Prove problems that carry a reference answer (an "Answer:" line or a dataset), or mark a wrong step with −1.',
    );
  const file = path.join(runDir, 'scored-proofs.jsonl');
  writeJsonl(file, [...rows.values()]);
  return {
    args: ['--data', file],
    count: rows.size,
    skipped: [
      ...unreadable.map((s) => `${s.file}: ${s.error}`),
      ...store.corrupt.map((c) => `labels.jsonl line ${c.line}: ${c.reason}`),
    ],
  };
}

/** The JSON lines of `name` in every practice set's folder; lines that are not JSON are skipped and named. */
function practiceRows(practice: string, name: string): { lines: string[]; skipped: string[] } {
  const files = fs.existsSync(practice)
    ? fs
        .readdirSync(practice)
        .map((d) => path.join(practice, d, name))
        .filter((f) => fs.existsSync(f))
    : [];
  const lines: string[] = [];
  const skipped: string[] = [];
  for (const f of files)
    fs.readFileSync(f, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!line.trim()) return;
        try {
          JSON.parse(line);
          lines.push(line);
        } catch {
          skipped.push(`${f} line ${i + 1}: not JSON`);
        }
      });
  return { lines, skipped };
}
