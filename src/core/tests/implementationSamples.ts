import * as fs from 'node:fs';
import { resourcePath } from '../resources';
import type { ModelBackend } from '../model/types';
import { codeBlocks } from './extractTests';
import { withFileImports } from './fileImports';
import { functionPromptValues, type PromptFunction } from './functionPrompt';
import { fillTemplate } from '../text/template';

export interface SampleOptions {
  model: ModelBackend;
  target: PromptFunction;
  /** The user's file: its imports travel with every sample, as with the stage-5 code. */
  fileSource: string;
  count: number;
  maxTokens: number;
  temperature: number;
  seed?: number;
  signal?: AbortSignal;
}

/**
 * Independent implementations for the evidence (evidence.ts): each from the specification alone,
 * with a short free-text plan, sampled at a temperature above zero in one batch where the backend
 * can. They never see the five stages' reasoning, so a misreading made there is not copied into
 * them. An answer without a code block is kept as an empty implementation: it passes nothing and
 * so never supports a test.
 */
export async function sampleImplementations(opts: SampleOptions): Promise<string[]> {
  return sampleFrom('implementation-sample.txt', {}, opts);
}

/**
 * Implementations sampled again where the specification's examples set the first ones aside:
 * the prompt shows the examples they failed and what an attempt returned (`failures`), which the
 * user's own docstring gives and nothing else, so the new samples may read the task as the examples
 * do. They still see none of the five stages' reasoning.
 */
export async function repairImplementations(opts: SampleOptions & { failures: string }): Promise<string[]> {
  return sampleFrom('implementation-repair.txt', { failures: opts.failures }, opts);
}

async function sampleFrom(
  templateFile: string,
  extra: Record<string, string>,
  opts: SampleOptions,
): Promise<string[]> {
  if (opts.count <= 0) return [];
  const template = fs.readFileSync(resourcePath('prompts', 'code', templateFile), 'utf8');
  const prompt = fillTemplate(template, { ...functionPromptValues(opts.target), ...extra });
  const result = await opts.model.generate([{ role: 'user', content: prompt }], {
    n: opts.count,
    maxTokens: opts.maxTokens,
    temperature: opts.temperature,
    seed: opts.seed,
    signal: opts.signal,
    logprobs: false,
    // The code block's closing fence ends a sample: what a small model adds after it (explanation,
    // usage) is never run, so decoding it only costs time. The opening fence
    // carries a language name (```python), so this does not stop there.
    stop: ['\n```\n'],
  });
  const texts = result.completions.map((c) => c.text);
  return Array.from({ length: opts.count }, (_, k) => {
    const code = codeBlocks(texts[k] ?? '')[0]?.trim() ?? '';
    return code ? withFileImports(code, opts.fileSource, opts.target.language) : '';
  });
}
