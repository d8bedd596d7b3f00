import { ModelError, type ModelBackend } from './types';

export type ModelConfig =
  | {
      backend: 'onnx';
      modelDir: string;
      variant: 'fp32' | 'q8' | 'q4';
      device: 'auto' | 'cpu' | 'cuda';
      threads?: number;
    }
  | {
      backend: 'openai';
      baseUrl: string;
      model: string;
      apiKey?: string;
      headers?: Record<string, string>;
      contextWindow?: number;
      /** The served model's tokenizer folder (chat template and exact counts where the server has none). */
      tokenizerDir?: string;
      maxOutputTokens?: number;
      timeoutMs?: number;
      /** Where the backend reports what it adjusted (e.g. an answer budget cut to fit the window). */
      onWarning?: (message: string) => void;
    };

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
