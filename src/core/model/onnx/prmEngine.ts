/**
 * A process reward model exported by the trainer (`export` of a `prm` job): one onnxruntime
 * session over a token classifier. A solution is tokenised exactly as the trainer did (problem
 * plus separator with special tokens, then each step plus separator without), and a step's score
 * is the probability of the "correct" label at its last token. Runs inside the model worker.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { ModelError } from '../types';
import { openInferenceSession, type DeviceChoice } from './inferenceSession';
import { readJson } from './modelFolder';
import { PRM_EXPORT_HINT, readPrmReport, type PrmReport } from './prmReport';

export interface PrmLoadOptions {
  modelDir: string;
  variant?: 'fp32' | 'q8';
  device?: DeviceChoice;
  threads?: number;
}

export interface PrmInfo {
  name: string;
  device: 'cpu' | 'cuda';
  contextWindow: number;
}

export class PrmEngine {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly report: PrmReport,
    readonly info: PrmInfo,
  ) {}

  static async load(options: PrmLoadOptions): Promise<PrmEngine> {
    const dir = options.modelDir;
    if (!existsSync(dir)) {
      throw new ModelError(
        `The process reward model folder ${dir} does not exist.`,
        'model-folder',
        PRM_EXPORT_HINT,
      );
    }
    const report = readPrmReport(dir);
    const variant = options.variant ?? 'fp32';
    const file = report.files[variant];
    if (!file || !existsSync(join(dir, file))) {
      throw new ModelError(
        `The process reward model in ${dir} has no ${variant} weights.`,
        'model-folder',
        `It has: ${Object.keys(report.files).join(', ')}.`,
      );
    }
    const config = readJson(join(dir, 'config.json'));
    const tokenizer = new Tokenizer(
      readJson(join(dir, 'tokenizer.json')),
      readJson(join(dir, 'tokenizer_config.json')),
    );
    const { session, device } = await openInferenceSession(
      join(dir, file),
      options.device ?? 'auto',
      options.threads,
    );
    const contextWindow =
      typeof config.max_position_embeddings === 'number' ? config.max_position_embeddings : 2048;
    return new PrmEngine(session, tokenizer, report, {
      name: basename(dir.replace(/[\\/]+$/, '')),
      device,
      contextWindow,
    });
  }

  /** Token ids of the solution and the index of each step's last token (as the trainer builds them). */
  encode(problem: string, steps: readonly string[]): { ids: number[]; stepEnds: number[] } {
    const sep = this.report.stepSeparator;
    const ids = [...this.tokenizer.encode(problem + sep).ids];
    const stepEnds: number[] = [];
    for (const step of steps) {
      ids.push(...this.tokenizer.encode(step + sep, { add_special_tokens: false }).ids);
      stepEnds.push(ids.length - 1);
    }
    return { ids, stepEnds };
  }

  /** P(correct) for each step, given the problem and the steps before it. */
  async scoreSteps(problem: string, steps: readonly string[]): Promise<number[]> {
    if (steps.length === 0) return [];
    const { ids, stepEnds } = this.encode(problem, steps);
    if (ids.length > this.info.contextWindow) {
      throw new ModelError(
        `The solution is ${ids.length} tokens long; the process reward model reads at most ${this.info.contextWindow}.`,
        'context-overflow',
        'Score a shorter solution, or split it into parts.',
      );
    }
    const dims = [1, ids.length];
    const out = await this.session.run({
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), dims),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), dims),
    });
    const logits = out.logits;
    const labels = logits.dims[2];
    if (labels !== this.report.numLabels) {
      throw new ModelError(
        `The PRM graph gives ${labels} labels per token; its export report says ${this.report.numLabels}.`,
        'model-shape',
        PRM_EXPORT_HINT,
      );
    }
    const data = logits.data as Float32Array;
    return stepEnds.map((end) =>
      softmaxAt(data.subarray(end * labels, (end + 1) * labels), this.report.correctLabel),
    );
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

function softmaxAt(row: Float32Array, index: number): number {
  const max = Math.max(...row);
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  return Math.exp(row[index] - max) / sum;
}
