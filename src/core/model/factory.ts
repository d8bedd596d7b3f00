import type { OnnxLoadOptions } from './onnx/backend';
import type { OpenAIBackendOptions } from './openai/backend';
import { ModelError, type ModelBackend } from './types';

/**
 * Which backend, with that backend's own options (type imports only: nothing heavy is loaded
 * here). The embedded engine's variant and device are always stated, so a config says exactly
 * which weights run where.
 */
export type ModelConfig =
  | ({ backend: 'onnx' } & OnnxLoadOptions & Required<Pick<OnnxLoadOptions, 'variant' | 'device'>>)
  | ({ backend: 'openai' } & OpenAIBackendOptions);

/**
 * Creates a backend from a config. Backends are imported on demand so that nothing heavy (the
 * native onnxruntime binding above all) is loaded until a model is actually needed.
 */
export async function createModelBackend(config: ModelConfig): Promise<ModelBackend> {
  if (config.backend === 'onnx') {
    const { OnnxBackend } = await import('./onnx/index.js');
    return OnnxBackend.load(config);
  }
  if (config.backend === 'openai') {
    const { OpenAIBackend } = await import('./openai/index.js');
    return OpenAIBackend.connect(config);
  }
  throw new ModelError(
    `Unknown model backend "${(config as { backend: string }).backend}".`,
    'load',
    'Use "onnx" or "openai".',
  );
}
