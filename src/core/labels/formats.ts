import { z } from 'zod';
import { stepHash } from '../steps/split';
import { problemIdOf } from '../steps/document';
import { currentLabels } from './store';
import type { LabelRecord, Rating } from './schema';
import type { NewLabel } from './store';

/** A labelled solution: its steps in order with the rating in force for each. */
export interface LabelledSolution {
  problemId: string;
  problemText: string;
  solutionId: string;
  steps: { index: number; text: string; rating: Rating }[];
  labeller?: string;
  meta?: Record<string, unknown>;
}

/** A solution whose labels could not all be exported, and why. */
export interface SkippedLabels {
  solutionId: string;
  problemId: string;
  /** Step indexes whose labels were left out. */
  steps: number[];
  /** Steps that were exported (the gap-free run from step 0). */
  exported: number;
  reason: string;
}

/**
 * Groups the labels in force by solution, steps in order. A solution is exported as the gap-free
 * run of steps from step 0 (a step's label means something only after the steps before it);
 * labels after a gap, or of a solution without step 0, are left out and reported in `skipped`.
 */
export function exportableSolutions(records: LabelRecord[]): {
  solutions: LabelledSolution[];
  skipped: SkippedLabels[];
} {
  const bySolution = new Map<string, LabelRecord[]>();
  for (const r of currentLabels(records).values())
    bySolution.set(r.solutionId, [...(bySolution.get(r.solutionId) ?? []), r]);
  // The problem text is written once (usually with a solution's first label); a later label that
  // replaces that one must not lose it, so it is looked up across every record of the problem.
  const problemTexts = new Map<string, string>();
  for (const r of records) if (r.problemText) problemTexts.set(r.problemId, r.problemText);
  const solutions: LabelledSolution[] = [];
  const skipped: SkippedLabels[] = [];
  for (const [solutionId, labels] of bySolution) {
    labels.sort((a, b) => a.stepIndex - b.stepIndex);
    const steps: LabelledSolution['steps'] = [];
    for (const l of labels) {
      if (l.stepIndex !== steps.length) break;
      steps.push({ index: l.stepIndex, text: l.stepText, rating: l.rating as Rating });
    }
    const left = labels.slice(steps.length).map((l) => l.stepIndex);
    if (left.length) {
      skipped.push({
        solutionId,
        problemId: labels[0].problemId,
        steps: left,
        exported: steps.length,
        reason: steps.length
          ? `no label on step ${steps.length}, so the labels of step${left.length > 1 ? 's' : ''} ${left.join(', ')} after the gap are left out`
          : `no label on step 0, so none of its ${left.length} labelled step${left.length > 1 ? 's' : ''} (${left.join(', ')}) can be exported`,
      });
    }
    if (!steps.length) continue;
    const first = labels[0];
    solutions.push({
      problemId: first.problemId,
      problemText:
        labels.find((l) => l.problemText)?.problemText ?? problemTexts.get(labels[0].problemId) ?? '',
      solutionId,
      steps,
      labeller: first.labeller,
      meta: first.meta,
    });
  }
  return { solutions, skipped };
}

/** The exportable solutions alone (see exportableSolutions for what is left out and why). */
export function labelledSolutions(records: LabelRecord[]): LabelledSolution[] {
  return exportableSolutions(records).solutions;
}

export type NeutralAs = 'positive' | 'negative' | 'drop' | 'keep';

/**
 * TRL's stepwise-supervision rows: `{prompt, completions, labels}`. A neutral step counts as
 * positive by default — it is correct, only not progress — as in the paper's PRM training where
 * neutral labels were folded into the positive class; `negative` or `drop` are the alternatives, and
 * `keep` writes every label as its rating, 1 / 0 / −1, for the trainer's three-class PRM
 * (`prm --label-classes 3`; its two-class head still reads 0 as positive).
 * Steps after the first wrong one are left out: their labels say nothing once the chain is broken.
 */
export function toTrlStepwise(
  solutions: LabelledSolution[],
  neutralAs: NeutralAs = 'positive',
): { prompt: string; completions: string[]; labels: (boolean | number)[] }[] {
  const rows = [];
  for (const s of solutions) {
    const completions: string[] = [];
    const labels: (boolean | number)[] = [];
    for (const step of s.steps) {
      if (step.rating === 0 && neutralAs === 'drop') continue;
      completions.push(step.text);
      labels.push(
        neutralAs === 'keep'
          ? step.rating
          : step.rating === 1 || (step.rating === 0 && neutralAs === 'positive'),
      );
      if (step.rating === -1) break;
    }
    if (completions.length) rows.push({ prompt: s.problemText, completions, labels });
  }
  return rows;
}

/** One PRM800K line (the fields of openai/prm800k's phase-2 format that Stepwise reads and writes). */
export const Prm800kLineSchema = z
  .object({
    labeler: z.string().optional(),
    timestamp: z.string().optional(),
    generation: z.number().nullable().optional(),
    is_quality_control_question: z.boolean().optional(),
    is_initial_screening_question: z.boolean().optional(),
    question: z
      .object({
        problem: z.string(),
        ground_truth_answer: z.string().optional(),
        ground_truth_solution: z.string().optional(),
      })
      .passthrough(),
    label: z.object({
      steps: z.array(
        z
          .object({
            completions: z
              .array(
                z
                  .object({
                    text: z.string(),
                    rating: z.number().nullable(),
                    flagged: z.boolean().nullable().optional(),
                  })
                  .passthrough(),
              )
              .nullable(),
            human_completion: z.unknown().optional(),
            chosen_completion: z.number().nullable().optional(),
          })
          .passthrough(),
      ),
      total_time: z.number().optional(),
      finish_reason: z.string().optional(),
    }),
  })
  .passthrough();
export type Prm800kLine = z.infer<typeof Prm800kLineSchema>;

export function toPrm800k(solutions: LabelledSolution[]): Prm800kLine[] {
  return solutions.map((s) => {
    const brokeAt = s.steps.findIndex((x) => x.rating === -1);
    return {
      labeler: s.labeller ?? 'stepwise',
      timestamp: typeof s.meta?.timestamp === 'string' ? s.meta.timestamp : new Date().toISOString(),
      generation: typeof s.meta?.generation === 'number' ? s.meta.generation : null,
      is_quality_control_question: false,
      is_initial_screening_question: false,
      question: {
        problem: s.problemText,
        ground_truth_answer:
          typeof s.meta?.groundTruthAnswer === 'string' ? s.meta.groundTruthAnswer : undefined,
      },
      label: {
        steps: s.steps.map((x) => ({
          completions: [{ text: x.text, rating: x.rating, flagged: false }],
          human_completion: null,
          chosen_completion: 0,
        })),
        total_time: 0,
        finish_reason:
          brokeAt >= 0
            ? 'found_error'
            : typeof s.meta?.finishReason === 'string'
              ? s.meta.finishReason
              : 'solution',
      },
    };
  });
}

/**
 * The step a PRM800K labeller settled on: the chosen completion; when none was chosen, the
 * labeller's own step (`human_completion`, written as a +1 step in phase 1), else — the last step
 * of a `found_error` solution — the first completion rated −1, which is the error that was found.
 */
function settledStep(
  step: Prm800kLine['label']['steps'][number],
): { text: string; rating: number | null } | undefined {
  const options = step.completions ?? [];
  if (typeof step.chosen_completion === 'number') return options[step.chosen_completion];
  const human = step.human_completion;
  if (typeof human === 'string') return { text: human, rating: 1 };
  if (human && typeof human === 'object' && typeof (human as { text?: unknown }).text === 'string')
    return { text: (human as { text: string }).text, rating: 1 };
  return options.find((o) => o.rating === -1) ?? options[0];
}

/**
 * Labels from PRM800K lines, one solution per line along the labeller's trajectory; steps with
 * no rating end the solution, since the labeller stopped there. Bad lines are reported with
 * their line number and skipped.
 */
export function fromPrm800k(lines: string[]): {
  labels: NewLabel[];
  problems: { line: number; reason: string }[];
} {
  const labels: NewLabel[] = [];
  const problems: { line: number; reason: string }[] = [];
  lines.forEach((raw, i) => {
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push({ line: i + 1, reason: 'not JSON' });
      return;
    }
    const parsed = Prm800kLineSchema.safeParse(value);
    if (!parsed.success) {
      problems.push({
        line: i + 1,
        reason: parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; '),
      });
      return;
    }
    const line = parsed.data;
    const problemText = line.question.problem;
    const problemId = problemIdOf(problemText);
    const chosen = line.label.steps.map(settledStep);
    const solutionId = `prm800k-${stepHash(chosen.map((c) => c?.text ?? '').join('\n'))}`;
    const before = labels.length;
    for (const [index, c] of chosen.entries()) {
      if (!c || c.rating === null || ![-1, 0, 1].includes(c.rating)) break;
      labels.push({
        problemId,
        problemText: index === 0 ? problemText : undefined,
        solutionId,
        stepIndex: index,
        stepHash: stepHash(c.text),
        stepText: c.text,
        rating: c.rating as Rating,
        source: 'import',
        labeller: line.labeler,
        meta:
          index === 0
            ? {
                finishReason: line.label.finish_reason,
                groundTruthAnswer: line.question.ground_truth_answer,
                generation: line.generation ?? null,
                timestamp: line.timestamp,
              }
            : undefined,
      });
    }
    if (labels.length === before) problems.push({ line: i + 1, reason: 'no rated step' });
  });
  return { labels, problems };
}
