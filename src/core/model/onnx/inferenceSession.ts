/**
 * Opening an onnxruntime session on the device the user asked for. Shared by the generator's
 * causal-LM session and the process reward model's session.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { ModelError } from '../types';

export type DeviceChoice = 'auto' | 'cpu' | 'cuda';

export async function openInferenceSession(
  modelFile: string,
  device: DeviceChoice,
  threads?: number,
): Promise<{ session: ort.InferenceSession; device: 'cpu' | 'cuda' }> {
  const base: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all', interOpNumThreads: 1 };
  // Left out, onnxruntime uses one thread per core.
  if (threads && threads > 0) base.intraOpNumThreads = Math.floor(threads);
  // onnxruntime-node does not fall back on its own: a provider list with an unavailable CUDA
  // throws, so CUDA is tried alone and CPU is the second attempt.
  const cudaLibrary = cudaProviderLibrary();
  if (device === 'cuda' && !existsSync(cudaLibrary)) {
    throw new ModelError(
      `CUDA was requested but onnxruntime-node has no CUDA provider (${cudaLibrary} is missing).`,
      'load',
      'Set stepwise.model.onnx.device to "auto" or "cpu", or install onnxruntime-node with its CUDA provider libraries (npm install without ONNXRUNTIME_NODE_INSTALL=skip).',
    );
  }
  // Without the provider library the CUDA attempt can only fail (loudly, on stderr): skip it.
  if (device === 'cuda' || (device === 'auto' && existsSync(cudaLibrary))) {
    try {
      // Quiet: on machines without CUDA the failed attempt is expected, not worth a stderr line.
      const session = await ort.InferenceSession.create(modelFile, {
        ...base,
        executionProviders: ['cuda'],
        logSeverityLevel: 4,
      });
      return { session, device: 'cuda' };
    } catch (e) {
      if (device === 'cuda') {
        throw new ModelError(
          `CUDA could not run the model: ${(e as Error).message}`,
          'load',
          'Set stepwise.model.onnx.device to "auto" or "cpu", or install the onnxruntime CUDA provider libraries, the NVIDIA driver, CUDA and cuDNN 9.',
        );
      }
    }
  }
  return { session: await createCpu(modelFile, base), device: 'cpu' };
}

async function createCpu(
  modelFile: string,
  base: ort.InferenceSession.SessionOptions,
): Promise<ort.InferenceSession> {
  try {
    // Without the arena, activations are plain allocations freed after each pass: the arena keeps
    // the chunks of the longest prompt's pass for the session's life (measured on the default model:
    // 15–30 MB lower peak resident memory, the same decode speed).
    return await ort.InferenceSession.create(modelFile, {
      ...base,
      executionProviders: ['cpu'],
      enableCpuMemArena: false,
    });
  } catch (e) {
    throw new ModelError(
      `onnxruntime could not load ${modelFile}: ${(e as Error).message}`,
      'load',
      'The file may be damaged or from a newer ONNX opset; re-create it (a ladder model: move its folder away and run `stepwise models install <id>`; a trained model: the trainer export job).',
    );
  }
}

/** Where onnxruntime-node looks for its CUDA execution provider: beside its native binding. */
function cudaProviderLibrary(): string {
  const root = dirname(require.resolve('onnxruntime-node/package.json'));
  const file =
    process.platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so';
  // onnxruntime-node 1.x loads its binding from bin/napi-v6 whatever the runtime's N-API version.
  return join(root, 'bin', 'napi-v6', process.platform, process.arch, file);
}
