import { z } from 'zod';

export const LABEL_SCHEMA_VERSION = 1;

export const Rating = z.union([z.literal(-1), z.literal(0), z.literal(1)]);
export type Rating = z.infer<typeof Rating>;

/**
 * One line of `.stepwise/labels/labels.jsonl`. Records are only ever appended: changing or undoing
 * a label appends a new record for the same step (rating null retracts it).
 */
export const LabelRecordSchema = z.object({
  schemaVersion: z.literal(LABEL_SCHEMA_VERSION),
  id: z.string().min(1),
  createdAt: z.string().datetime(),
  problemId: z.string().min(1),
  problemText: z.string().optional(),
  /** The solution: `doc:<path>` for a proof document, `s-<hash>` for a Prove run's candidate. */
  solutionId: z.string().min(1),
  stepIndex: z.int().min(0),
  /** sha256 (16 hex) of the whitespace-normalised step text when it was labelled. */
  stepHash: z.string().regex(/^[0-9a-f]{16}$/),
  stepText: z.string(),
  /** +1 correct and useful, 0 neutral, −1 wrong; null retracts the step's label. */
  rating: Rating.nullable(),
  /**
   * Who made the label: a person (editor, panel, cli, import) or a labeller program
   * (`auto-completion`: continuations from the step reach the reference answer or not;
   * `auto-verifier`: unanimous verdicts of the verifier model). A person's label always outranks
   * an automatic one for the same step.
   */
  source: z.enum(['editor', 'panel', 'cli', 'import', 'auto-completion', 'auto-verifier']),
  labeller: z.string().optional(),
  /** The id of the record this one replaces, when it changes or undoes a label. */
  supersedes: z.string().optional(),
  /** Extra fields kept from an import (e.g. PRM800K's finish_reason, ground truth). */
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type LabelRecord = z.infer<typeof LabelRecordSchema>;

export type LabelSource = LabelRecord['source'];

/** Whether a label came from a labeller program rather than a person. */
export function isAutomaticLabel(record: Pick<LabelRecord, 'source'>): boolean {
  return record.source === 'auto-completion' || record.source === 'auto-verifier';
}
