/**
 * The report the trainer's `export` writes beside a process reward model (stepwise_export.json):
 * read without onnxruntime, so the CLI and the editor can tell a PRM folder from anything else
 * before they start work that needs one.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ModelError } from '../types';
import { readJson } from './modelFolder';

export const PRM_TASK = 'token-classification-prm';
export const PRM_REPORT_FILE = 'stepwise_export.json';

export const PRM_EXPORT_HINT =
  "Export the trained PRM with the trainer (python -m stepwise_trainer export --model RUN/final --output-dir DIR), or accept 'Use as Step Scorer' after a prm training run, and point stepwise.prm.modelPath at that folder.";

export interface PrmReport {
  stepSeparator: string;
  correctLabel: number;
  numLabels: number;
  files: Record<string, string>;
}

/** The PRM's export report; a ModelError (code model-folder) says why a folder is not a PRM. */
export function readPrmReport(dir: string): PrmReport {
  if (!existsSync(join(dir, PRM_REPORT_FILE))) {
    throw new ModelError(
      `${dir} holds no verified export (${PRM_REPORT_FILE} is missing), so it cannot be used as a process reward model.`,
      'model-folder',
      PRM_EXPORT_HINT,
    );
  }
  const report = readJson(join(dir, PRM_REPORT_FILE));
  if (report.task !== PRM_TASK) {
    throw new ModelError(
      `${basename(dir)} is a ${typeof report.task === 'string' ? report.task : 'generator'} export, not a process reward model.`,
      'model-folder',
      PRM_EXPORT_HINT,
    );
  }
  const numLabels = Number(report.num_labels);
  const correctLabel = Number(report.correct_label);
  if (
    typeof report.step_separator !== 'string' ||
    !Number.isInteger(numLabels) ||
    !Number.isInteger(correctLabel) ||
    correctLabel < 0 ||
    correctLabel >= numLabels ||
    !report.files ||
    typeof report.files !== 'object'
  ) {
    throw new ModelError(`${PRM_REPORT_FILE} in ${dir} is incomplete.`, 'model-folder', PRM_EXPORT_HINT);
  }
  return {
    stepSeparator: report.step_separator,
    correctLabel,
    numLabels,
    files: report.files as Record<string, string>,
  };
}
