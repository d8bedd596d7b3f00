/**
 * The model ladder: the local models Stepwise can install by itself, smallest first. Quality figures
 * are from the first 5 MATH-500 problems, greedy, 512 tokens; speeds are decode tokens per second with
 * 2 threads, measured on this project's 2-core CPU machines.
 */

import { isSmallSample } from '../../math/sampleSize';
import type { LadderModel } from './catalogTypes';
import {
  QWEN_CODER_05B_GGUF,
  QWEN_CODER_05B_PARTS,
  QWEN_CODER_15B_GGUF,
  QWEN_CODER_15B_PARTS,
  SMOLLM2_135M_GGUF,
  SMOLLM2_135M_PARTS,
} from './pins';

const MEASURED_ON = 'measured on a 2-core CPU';

export const TINY_MODEL_ID = 'smollm2-135m-instruct';
export const DEFAULT_MODEL_ID = 'qwen2.5-coder-0.5b-instruct';
export const LARGER_MODEL_ID = 'qwen2.5-coder-1.5b-instruct';

export const LADDER: readonly LadderModel[] = [
  {
    id: TINY_MODEL_ID,
    displayName: 'SmolLM2-135M-Instruct',
    rung: 'tiny',
    goodFor: 'Fast checks of the tooling: very quick, but rarely right.',
    firstProblems: { k: 0, n: 5, dataset: 'MATH-500' },
    quantization: 'Q4_1',
    memoryGb: 0.2,
    speed: { decodeTokensPerSecond: 90.7, engine: 'llama.cpp on the same GGUF', measuredOn: MEASURED_ON },
    licence: {
      spdx: 'Apache-2.0',
      holder: 'Hugging Face',
      modelCard: 'https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct',
    },
    parts: SMOLLM2_135M_PARTS,
    gguf: SMOLLM2_135M_GGUF,
  },
  {
    id: DEFAULT_MODEL_ID,
    displayName: 'Qwen2.5-Coder-0.5B-Instruct',
    rung: 'default',
    goodFor: 'Everyday proofs, code reasoning and tests on a laptop CPU.',
    firstProblems: { k: 2, n: 5, dataset: 'MATH-500' },
    quantization: 'Q4_K_M',
    memoryGb: 0.7,
    speed: { decodeTokensPerSecond: 33.0, engine: 'llama.cpp on the same GGUF', measuredOn: MEASURED_ON },
    licence: {
      spdx: 'Apache-2.0',
      holder: 'Alibaba Cloud (Qwen)',
      modelCard: 'https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct',
    },
    parts: QWEN_CODER_05B_PARTS,
    gguf: QWEN_CODER_05B_GGUF,
  },
  {
    id: LARGER_MODEL_ID,
    displayName: 'Qwen2.5-Coder-1.5B-Instruct',
    rung: 'larger',
    goodFor: 'Harder proofs and code when answers matter more than speed.',
    firstProblems: { k: 4, n: 5, dataset: 'MATH-500' },
    quantization: 'Q4_K_M',
    memoryGb: 1.9,
    speed: { decodeTokensPerSecond: 21.2, engine: 'llama.cpp on the same GGUF', measuredOn: MEASURED_ON },
    licence: {
      spdx: 'Apache-2.0',
      holder: 'Alibaba Cloud (Qwen)',
      modelCard: 'https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct',
    },
    parts: QWEN_CODER_15B_PARTS,
    gguf: QWEN_CODER_15B_GGUF,
  },
];

/** The catalog entry for an id; undefined when the ladder has no such model. */
export function findLadderModel(id: string): LadderModel | undefined {
  return LADDER.find((m) => m.id === id.trim().toLowerCase());
}

/**
 * "4 of the first 5 MATH-500 problems right (few items)": the catalog's smoke-test figure with its
 * n, marked as the evaluation report marks any figure from fewer than SMALL_SAMPLE items.
 */
export function describeFirstProblems(model: LadderModel): string {
  const { k, n, dataset } = model.firstProblems;
  return `${k} of the first ${n} ${dataset} problems right${isSmallSample(n) ? ' (few items)' : ''}`;
}

/** "33 tok/s (llama.cpp on the same GGUF, measured on a 2-core CPU)" */
export function describeSpeed(model: LadderModel): string {
  return `${model.speed.decodeTokensPerSecond.toFixed(0)} tok/s (${model.speed.engine}, ${model.speed.measuredOn})`;
}
