/**
 * Reads an onnx-community-style model folder: which files must be there, and what config.json
 * says about the graph (layers, key/value heads, head size, context window, EOS tokens).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ModelError } from '../types';
import { installedNameIn } from '../ladder/installRecord';

export type OnnxVariant = 'fp32' | 'q8' | 'q4';

/** The weights file of each variant, relative to the folder. */
export const VARIANT_FILES: Record<OnnxVariant, string> = {
  fp32: 'onnx/model.onnx',
  q8: 'onnx/model_quantized.onnx',
  q4: 'onnx/model_q4.onnx',
};

export interface ModelShape {
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocabSize: number | undefined;
  contextWindow: number;
}

export interface ModelFolder {
  dir: string;
  name: string;
  modelFile: string;
  shape: ModelShape;
  /** tokenizer.json, parsed by the one who builds the tokenizer so that the parse is not kept. */
  tokenizerFile: string;
  tokenizerConfig: Record<string, unknown>;
  /** Contents of chat_template.jinja when the folder has one. */
  chatTemplateFile: string | undefined;
  /** Token ids that end a sequence, from config.json and generation_config.json. */
  eosTokenIds: number[];
  padTokenId: number | undefined;
}

const BUILD_HINT =
  'Point stepwise.model.onnx.path at a folder with config.json, tokenizer.json, tokenizer_config.json and onnx/model*.onnx, or install the default model: in VS Code pick it in Stepwise: Select Model, on the command line run `stepwise models install qwen2.5-coder-0.5b-instruct` (scripts/setup.sh does).';

export function readJson(path: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed as Record<string, unknown>;
  } catch (e) {
    throw new ModelError(
      `${basename(path)} in the model folder cannot be read: ${(e as Error).message}.`,
      'model-folder',
      'Rebuild or re-copy the model folder; the file is damaged.',
    );
  }
}

function positiveInt(config: Record<string, unknown>, keys: string[]): number | undefined {
  for (const key of keys) {
    const v = config[key];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return undefined;
}

function tokenIds(value: unknown): number[] {
  if (typeof value === 'number' && Number.isInteger(value)) return [value];
  if (Array.isArray(value))
    return value.filter((v): v is number => typeof v === 'number' && Number.isInteger(v));
  return [];
}

/** Reads config.json into the figures the graph must agree with. */
export function readModelShape(config: Record<string, unknown>): ModelShape {
  const layers = positiveInt(config, ['num_hidden_layers', 'n_layer', 'num_layers']);
  const heads = positiveInt(config, ['num_attention_heads', 'n_head']);
  const hidden = positiveInt(config, ['hidden_size', 'n_embd']);
  if (layers === undefined || heads === undefined) {
    throw new ModelError(
      'config.json in the model folder does not say num_hidden_layers and num_attention_heads.',
      'model-folder',
      'Use the config.json that was exported with the model.',
    );
  }
  const kvHeads = positiveInt(config, ['num_key_value_heads']) ?? heads;
  const headDim = positiveInt(config, ['head_dim']) ?? (hidden !== undefined ? hidden / heads : undefined);
  if (headDim === undefined || !Number.isInteger(headDim)) {
    throw new ModelError(
      'config.json in the model folder gives neither head_dim nor a hidden_size divisible by num_attention_heads.',
      'model-folder',
      'Use the config.json that was exported with the model.',
    );
  }
  return {
    layers,
    heads,
    kvHeads,
    headDim,
    vocabSize: positiveInt(config, ['vocab_size']),
    contextWindow: positiveInt(config, ['max_position_embeddings', 'n_positions']) ?? 2048,
  };
}

/** Checks the folder and reads everything but the weights; throws `model-folder` naming missing files. */
export function openModelFolder(dir: string, variant: OnnxVariant): ModelFolder {
  if (!existsSync(dir)) {
    throw new ModelError(`The model folder ${dir} does not exist.`, 'model-folder', BUILD_HINT);
  }
  const modelFile = VARIANT_FILES[variant];
  if (!modelFile) {
    throw new ModelError(`Unknown ONNX variant "${variant}".`, 'load', 'Use fp32, q8 or q4.');
  }
  const required = ['config.json', 'tokenizer.json', 'tokenizer_config.json', modelFile];
  const missing = required.filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) {
    const others = (Object.keys(VARIANT_FILES) as OnnxVariant[]).filter(
      (v) => v !== variant && existsSync(join(dir, VARIANT_FILES[v])),
    );
    const variantHint =
      missing.includes(modelFile) && others.length > 0
        ? ` This folder has the ${others.join(', ')} variant; choose it in stepwise.model.onnx.variant.`
        : '';
    throw new ModelError(
      `The model folder ${dir} is missing ${missing.join(', ')}.`,
      'model-folder',
      BUILD_HINT + variantHint,
    );
  }

  const config = readJson(join(dir, 'config.json'));
  const generationConfigPath = join(dir, 'generation_config.json');
  const generationConfig = existsSync(generationConfigPath) ? readJson(generationConfigPath) : {};
  const templatePath = join(dir, 'chat_template.jinja');
  const eos = new Set([...tokenIds(config.eos_token_id), ...tokenIds(generationConfig.eos_token_id)]);
  const pad = tokenIds(generationConfig.pad_token_id ?? config.pad_token_id)[0];
  return {
    dir,
    // A model of the ladder carries its display name in its install record; others go by folder.
    name: installedNameIn(dir) ?? basename(dir.replace(/[\\/]+$/, '')),
    modelFile: join(dir, modelFile),
    shape: readModelShape(config),
    tokenizerFile: join(dir, 'tokenizer.json'),
    tokenizerConfig: readJson(join(dir, 'tokenizer_config.json')),
    chatTemplateFile: existsSync(templatePath) ? readFileSync(templatePath, 'utf8') : undefined,
    eosTokenIds: [...eos],
    padTokenId: pad,
  };
}
