import * as path from 'node:path';
import { runTrainer, type TrainerRun } from './run';

export interface RetrainOptions {
  python: string;
  /** What the trainer starts from: 'smollm2', a GGUF file or a Hugging Face folder (the last retrained one's). */
  baseModel: string;
  /** A round's generator-rewards.jsonl: every proposed question with its R_G. */
  rewards: string;
  /** Where the trained model and its ONNX export go. */
  outDir: string;
  /** More flags for the question-generator job (e.g. --max-steps 20 --lora-r 8). */
  trainerArgs?: string[];
  env?: Record<string, string>;
  signal?: AbortSignal;
  onLog?: (line: string) => void;
}

/**
 * Trains the question generator on one round's R_G (the trainer's `question-generator` job) and
 * exports it to ONNX (the trainer's `export`, checked against PyTorch), so the practice loop, which
 * runs ONNX models, can propose its next round with it. Returns the trained Hugging Face folder
 * (the next retraining's base) and the ONNX folder. A job that does not finish is an error that
 * says which job and why.
 */
export async function retrainQuestionGenerator(o: RetrainOptions): Promise<{ model: string; onnx: string }> {
  const job = async (name: string, args: string[]) => {
    const run = await runTrainer({
      python: o.python,
      job: name,
      args,
      env: o.env,
      signal: o.signal,
      onLog: o.onLog,
    });
    if (run.outcome !== 'done')
      throw new Error(`The trainer's ${name} job did not finish (${run.outcome}): ${run.message}`);
    return doneOutput(run);
  };
  const trained = await job('question-generator', [
    '--base-model',
    o.baseModel,
    '--data',
    o.rewards,
    '--output-dir',
    path.join(o.outDir, 'question-generator'),
    ...(o.trainerArgs ?? []),
  ]);
  const onnxDir = path.join(o.outDir, 'onnx');
  const exported = await job('export', ['--model', trained.output, '--output-dir', onnxDir]);
  return { model: trained.output, onnx: exported.onnx ?? onnxDir };
}

function doneOutput(run: TrainerRun): { output: string; onnx?: string } {
  const done = run.events.find((e) => e.type === 'done');
  if (!done || done.type !== 'done')
    throw new Error('The trainer finished without saying where its model is.');
  return { output: done.output, onnx: done.onnx ?? undefined };
}
