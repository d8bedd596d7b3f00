/**
 * GGUF → ONNX model folder, without Python: the quantized blocks are carried over exactly (see
 * blockCodecs.ts), the graph is the llama.cpp computation (decoderGraph.ts), the tokenizer is
 * rebuilt from the GGUF's vocabulary (tokenizerFiles.ts). The folder is written beside its final
 * place and renamed into place only when complete, so the engine never sees half of one.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { carryOverBlocks, floatValues, isCarriedOver } from './blockCodecs';
import { buildConfigFiles } from './configFiles';
import { buildDecoderGraph, type WeightSource } from './decoderGraph';
import { fastBlocks, type ConversionVariant } from './fastVariant';
import { readGgufFile, readTensorBytes, type GgufFile } from './ggufFile';
import { GraphBuilder } from './graphBuilder';
import { readHyperparameters, UnsupportedModelError } from './hyperparameters';
import { ACCURACY_INT8, type LinearWeight } from './linearLayer';
import { buildTokenizerFiles } from './tokenizerFiles';
import { writeEmbeddingTable } from '../onnx/embeddingTable';

/** Where the graph lands inside the folder: the engine's "q4" variant. */
export const CONVERTED_MODEL_FILE = 'onnx/model_q4.onnx';
/** The token embedding table beside it (read by the session, see embeddingTable.ts). */
export const EMBEDDING_TABLE_FILE = 'onnx/model_q4.embeddings';

export interface ConversionProgress {
  stage: 'reading' | 'layers' | 'writing' | 'done';
  done: number;
  total: number;
}

export interface ConversionOptions {
  onProgress?: (p: ConversionProgress) => void;
  signal?: AbortSignal;
  /**
   * How the quantized matmuls treat activations: 'int8' (default) quantizes them per block as
   * llama.cpp does, with onnxruntime's fast integer kernels; 'float' keeps them in float32, which
   * is slower (much slower for 8-bit weights) and leaves only float rounding between the graph
   * and the GGUF's weights: for reference runs and tests.
   */
  activations?: 'int8' | 'float';
  /**
   * 'exact' (default) carries every quantized block over as the GGUF has it; 'fast' re-quantizes
   * the 5/6-bit and offset-carrying tensors to 4-bit blocks (fastVariant.ts): faster, not exact.
   */
  variant?: ConversionVariant;
}

export interface ConversionReport {
  outDir: string;
  modelFile: string;
  architecture: string;
  modelName: string;
  layers: number;
  /** ggml type → number of tensors of that type in the source. */
  tensorTypes: Record<string, number>;
  /** Bytes of the external weight file. */
  weightBytes: number;
  variant: ConversionVariant;
  /** Tensors re-quantized to 4-bit blocks (fast variant), by their ggml type. */
  requantized: Record<string, number>;
  seconds: number;
}

/** The conversion was cancelled through its AbortSignal; nothing was left behind. */
export class ConversionAbortedError extends Error {
  constructor() {
    super('The GGUF conversion was cancelled.');
  }
}

function weightSource(
  file: GgufFile,
  variant: ConversionVariant,
  requantized: Record<string, number>,
): WeightSource {
  const tensor = (name: string) => {
    const info = file.tensors.get(name);
    if (!info)
      throw new UnsupportedModelError(
        `The GGUF lacks the tensor ${name}; the file is incomplete or of another layout.`,
      );
    return info;
  };
  return {
    has: (name) => file.tensors.has(name),
    linear(name): LinearWeight {
      const info = tensor(name);
      if (info.dims.length !== 2)
        throw new UnsupportedModelError(`${name} has ${info.dims.length} dimensions, not 2.`);
      const [cols, rows] = info.dims;
      const bytes = readTensorBytes(file, info);
      const fast = variant === 'fast' ? fastBlocks(info.type, bytes, rows, cols) : undefined;
      if (fast) {
        requantized[info.type] = (requantized[info.type] ?? 0) + 1;
        return { kind: 'blocks', blocks: fast };
      }
      if (isCarriedOver(info.type))
        return { kind: 'blocks', blocks: carryOverBlocks(info.type, bytes, rows, cols) };
      if (info.type === 'F32' || info.type === 'F16' || info.type === 'BF16') {
        return { kind: 'float', rows, cols, values: floatValues(info.type, bytes) };
      }
      throw new UnsupportedModelError(
        `${name} is stored as ${info.type}, which the converter cannot carry over exactly (it handles F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K).`,
      );
    },
    vector(name) {
      const info = tensor(name);
      if (info.type !== 'F32' && info.type !== 'F16' && info.type !== 'BF16') {
        throw new UnsupportedModelError(`${name} is ${info.type}; norms and biases must be float.`);
      }
      return floatValues(info.type, readTensorBytes(file, info));
    },
  };
}

export async function convertGgufToOnnx(
  ggufPath: string,
  outDir: string,
  options: ConversionOptions = {},
): Promise<ConversionReport> {
  const started = performance.now();
  const report = (p: ConversionProgress) => options.onProgress?.(p);
  const checkAbort = () => {
    if (options.signal?.aborted) throw new ConversionAbortedError();
  };
  report({ stage: 'reading', done: 0, total: 1 });
  const file = readGgufFile(ggufPath);
  const hp = readHyperparameters(file);
  const tokenizer = buildTokenizerFiles(file, hp.contextLength);
  const { config, generationConfig } = buildConfigFiles(hp, tokenizer, { file: basename(ggufPath) });
  report({ stage: 'reading', done: 1, total: 1 });
  checkAbort();

  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  const staging = join(parent, `.${basename(outDir)}.converting-${process.pid}-${Date.now()}`);
  mkdirSync(join(staging, 'onnx'), { recursive: true });
  const builder = new GraphBuilder(join(staging, `${CONVERTED_MODEL_FILE}_data`));
  const variant = options.variant ?? 'exact';
  const requantized: Record<string, number> = {};
  try {
    const accuracyLevel = options.activations === 'float' ? 0 : ACCURACY_INT8;
    await buildDecoderGraph(
      builder,
      hp,
      weightSource(file, variant, requantized),
      accuracyLevel,
      async (layer, layers) => {
        report({ stage: 'layers', done: layer, total: layers });
        // Yields so that an abort (or anything else on this thread) can run between layers.
        await new Promise((resolve) => setImmediate(resolve));
        checkAbort();
      },
    );
    report({ stage: 'writing', done: 0, total: 1 });
    const embedding = file.tensors.get('token_embd.weight')!;
    writeEmbeddingTable(
      join(staging, EMBEDDING_TABLE_FILE),
      { type: embedding.type, rows: embedding.dims[1], cols: embedding.dims[0] },
      readTensorBytes(file, embedding),
    );
    const model = builder.finish(hp.name, {
      source_gguf: basename(ggufPath),
      architecture: hp.architecture,
      stepwise_variant: variant,
    });
    writeFileSync(join(staging, CONVERTED_MODEL_FILE), model);
    const json = (name: string, value: unknown) =>
      writeFileSync(join(staging, name), JSON.stringify(value, null, 2) + '\n');
    json('config.json', config);
    json('generation_config.json', generationConfig);
    json('tokenizer_config.json', tokenizer.tokenizerConfig);
    // The vocabulary is large: no indentation.
    writeFileSync(join(staging, 'tokenizer.json'), JSON.stringify(tokenizer.tokenizerJson));
    checkAbort();
    replaceFolder(staging, outDir);
  } catch (e) {
    builder.abandon();
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  report({ stage: 'done', done: 1, total: 1 });
  const tensorTypes: Record<string, number> = {};
  for (const t of file.tensors.values()) tensorTypes[t.type] = (tensorTypes[t.type] ?? 0) + 1;
  return {
    outDir,
    modelFile: join(outDir, CONVERTED_MODEL_FILE),
    architecture: hp.architecture,
    modelName: hp.name,
    layers: hp.layers,
    tensorTypes,
    weightBytes: builder.externalBytes,
    variant,
    requantized,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Puts the finished folder in place; an older folder there is moved aside first and then removed. */
function replaceFolder(staging: string, outDir: string): void {
  if (!existsSync(outDir)) {
    renameSync(staging, outDir);
    return;
  }
  const old = `${staging}.previous`;
  renameSync(outDir, old);
  try {
    renameSync(staging, outDir);
  } catch (e) {
    renameSync(old, outDir);
    throw e;
  }
  rmSync(old, { recursive: true, force: true });
}
