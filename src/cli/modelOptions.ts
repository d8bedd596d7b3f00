import { existsSync } from 'node:fs';
import { createModelBackend, type ModelConfig } from '../core/model/factory';
import { DEFAULT_VARIANT, defaultModelDir } from '../core/model/defaults';
import { readInstallRecord } from '../core/model/ladder/installRecord';
import { isModelVariant, variantDir } from '../core/model/ladder/variants';
import type { ModelBackend } from '../core/model/types';
import { parseCommandLine, UsageError } from './command';

/** The model options every model-using subcommand accepts, for util.parseArgs. */
export const MODEL_OPTIONS = {
  'model-dir': { type: 'string' },
  variant: { type: 'string' },
  device: { type: 'string' },
  endpoint: { type: 'string' },
  model: { type: 'string' },
  'context-window': { type: 'string' },
  tokenizer: { type: 'string' },
  'assertion-grammar': { type: 'string' },
  'no-prefix-cache': { type: 'boolean' },
} as const;

export const MODEL_USAGE =
  '[--model-dir DIR [--variant exact|fast|q4|q8|fp32] [--device auto|cpu|cuda] [--no-prefix-cache] | --endpoint URL --model NAME [--context-window N] [--tokenizer DIR] [--assertion-grammar auto|expressions|lines]]  (API key: $STEPWISE_API_KEY)';

type ParsedModelOptions = Partial<Record<Exclude<keyof typeof MODEL_OPTIONS, 'no-prefix-cache'>, string>> & {
  'no-prefix-cache'?: boolean;
};

/** `--assertion-grammar` (endpoints only), checked; `auto` when not given. */
export function assertionGrammarOf(values: ParsedModelOptions): 'auto' | 'expressions' | 'lines' {
  const grammar = values['assertion-grammar'] ?? 'auto';
  if (grammar !== 'auto' && grammar !== 'expressions' && grammar !== 'lines')
    throw new UsageError(`--assertion-grammar must be auto, expressions or lines, not "${grammar}".`);
  return grammar;
}

/** The model a command uses: an endpoint when given, else an ONNX folder (the default model). */
export function modelConfigFrom(
  values: ParsedModelOptions,
  env: NodeJS.ProcessEnv = process.env,
): ModelConfig {
  if (values.endpoint) {
    if (values['no-prefix-cache'])
      throw new UsageError('--no-prefix-cache is for a local model; a server keeps its own prompt cache.');
    if (!values.model)
      throw new UsageError('--endpoint needs --model NAME (the model name the server serves).');
    const window = values['context-window'];
    const contextWindow = window === undefined ? undefined : Number(window);
    if (contextWindow !== undefined && !(Number.isInteger(contextWindow) && contextWindow >= 256))
      throw new UsageError(
        `--context-window must be a whole number of tokens (at least 256), not "${window}".`,
      );
    const grammar = assertionGrammarOf(values);
    return {
      backend: 'openai',
      baseUrl: values.endpoint,
      model: values.model,
      apiKey: env.STEPWISE_API_KEY,
      contextWindow,
      tokenizerDir: values.tokenizer,
      assertionGrammar: grammar,
      // The server's own window is read where it says; otherwise the user hears what was assumed.
      onWarning: (message) => process.stderr.write(`stepwise: ${message}\n`),
    };
  }
  for (const flag of ['context-window', 'tokenizer', 'assertion-grammar'] as const) {
    if (values[flag] !== undefined)
      throw new UsageError(`--${flag} is for --endpoint; a local model folder says its own.`);
  }
  const variant = values.variant ?? DEFAULT_VARIANT;
  if (!['fp32', 'q8', 'q4', 'exact', 'fast'].includes(variant))
    throw new UsageError(`--variant must be exact, fast, fp32, q8 or q4, not "${variant}".`);
  const baseDir = values['model-dir'] ?? defaultModelDir(env);
  // exact and fast name a ladder model's two conversions (folders side by side, both q4 graphs);
  // fp32, q8 and q4 name a weights file inside any onnx-community-style folder.
  const modelDir = isModelVariant(variant) ? variantDir(baseDir, variant) : baseDir;
  if (variant === 'fast' && !existsSync(modelDir)) {
    const id = readInstallRecord(baseDir)?.id ?? '<id>';
    throw new UsageError(
      `The fast variant of ${baseDir} is not installed (no ${modelDir}): install it with \`stepwise models install ${id} --variant fast\`.`,
    );
  }
  const device = values.device ?? 'auto';
  if (!['auto', 'cpu', 'cuda'].includes(device))
    throw new UsageError(`--device must be auto, cpu or cuda, not "${device}".`);
  return {
    backend: 'onnx',
    modelDir,
    variant: isModelVariant(variant) ? 'q4' : (variant as 'fp32' | 'q8' | 'q4'),
    device: device as 'auto' | 'cpu' | 'cuda',
    // Requests that extend the last one read its keys and values instead of computing them again.
    prefixCache: !values['no-prefix-cache'],
  };
}

export function openModel(values: ParsedModelOptions): Promise<ModelBackend> {
  return createModelBackend(modelConfigFrom(values));
}

/**
 * The separate local verifier of `--verifier-model-dir DIR`, loaded with the generator's variant and
 * device (even when the generator is an endpoint); undefined without the flag.
 */
export function openVerifierModel(
  values: ParsedModelOptions & { 'verifier-model-dir'?: string },
): Promise<ModelBackend | undefined> {
  const dir = values['verifier-model-dir'];
  if (!dir) return Promise.resolve(undefined);
  return openModel({ ...values, endpoint: undefined, 'model-dir': dir });
}

/** Parses argv with the model options added; unknown options are usage errors. */
export function parseWithModel<
  T extends Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>,
>(argv: string[], options: T) {
  return parseCommandLine(argv, { ...MODEL_OPTIONS, ...options });
}
