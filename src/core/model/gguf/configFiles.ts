/**
 * config.json and generation_config.json for a converted model, in Hugging Face's vocabulary so
 * that the engine (modelFolder.ts) and other tools read the shape they expect.
 */
import type { Hyperparameters } from './hyperparameters';
import type { TokenizerFiles } from './tokenizerFiles';

const HF_CLASS: Record<Hyperparameters['architecture'], { architectures: string[]; model_type: string }> = {
  llama: { architectures: ['LlamaForCausalLM'], model_type: 'llama' },
  qwen2: { architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2' },
};

/** Marks the graph convention of a converted folder (see decoderGraph.ts). */
export const GRAPH_CONVENTION = 'stepwise-gqa-shared-kv';

export function buildConfigFiles(
  hp: Hyperparameters,
  tokenizer: TokenizerFiles,
  source: { file: string; sha256?: string },
): { config: Record<string, unknown>; generationConfig: Record<string, unknown> } {
  const config = {
    ...HF_CLASS[hp.architecture],
    hidden_size: hp.hidden,
    intermediate_size: hp.intermediate,
    num_hidden_layers: hp.layers,
    num_attention_heads: hp.heads,
    num_key_value_heads: hp.kvHeads,
    head_dim: hp.headDim,
    vocab_size: hp.vocabSize,
    max_position_embeddings: hp.contextLength,
    rms_norm_eps: hp.rmsEpsilon,
    rope_theta: hp.ropeTheta,
    hidden_act: 'silu',
    tie_word_embeddings: hp.tiedEmbeddings,
    attention_bias: hp.attentionBias,
    bos_token_id: tokenizer.bosTokenId ?? null,
    eos_token_id: tokenizer.eosTokenId ?? null,
    pad_token_id: tokenizer.padTokenId ?? null,
    torch_dtype: 'float32',
    stepwise: {
      graph_convention: GRAPH_CONVENTION,
      converted_from: source.file,
      ...(source.sha256 ? { gguf_sha256: source.sha256 } : {}),
      model_name: hp.name,
    },
  };
  const generationConfig = {
    bos_token_id: tokenizer.bosTokenId ?? null,
    eos_token_id: tokenizer.endOfGenerationIds,
    pad_token_id: tokenizer.padTokenId ?? null,
  };
  return { config, generationConfig };
}
