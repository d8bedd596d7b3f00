/**
 * tokenizer.json and tokenizer_config.json from a GGUF's vocabulary, so that the Hugging Face
 * tokenizer gives the ids llama.cpp gives: byte-level BPE over the GGUF's tokens and merges, the
 * pre-tokenizer regex llama.cpp uses for the file's `tokenizer.ggml.pre`, and the control and
 * user-defined tokens as added tokens (matched before BPE, as llama.cpp does with special parsing).
 */
import type { GgufFile, GgufValue } from './ggufFile';
import { UnsupportedModelError } from './hyperparameters';

/** llama_token_type values in tokenizer.ggml.token_type. */
const TokenType = { Normal: 1, Unknown: 2, Control: 3, UserDefined: 4, Unused: 5, Byte: 6 } as const;

/** llama.cpp's pre-tokenizer splits (llama-vocab.cpp), as Hugging Face pre-tokenizer configs. */
const PRE_TOKENIZERS: Record<string, unknown> = {
  // Split each digit off first, then the GPT-2 pattern (applied by ByteLevel's own regex).
  smollm: {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: '\\p{N}' }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    ],
  },
  // The case-insensitive contractions are spelled out, as llama.cpp does, instead of (?i:...).
  qwen2: {
    type: 'Sequence',
    pretokenizers: [
      {
        type: 'Split',
        pattern: {
          Regex:
            "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        },
        behavior: 'Isolated',
        invert: false,
      },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    ],
  },
};
PRE_TOKENIZERS.gpt2 = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };

function strings(value: GgufValue | undefined, key: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new UnsupportedModelError(`The GGUF metadata lacks ${key} (a list of strings).`);
  }
  return value as string[];
}

/**
 * Control tokens that end a generation besides the declared EOS: llama.cpp's end-of-generation
 * texts, with the fill-in-the-middle pad, repository and file separators it also stops at.
 */
const END_OF_GENERATION = [
  '<|eot_id|>',
  '<|im_end|>',
  '<|end|>',
  '<end_of_turn>',
  '<|endoftext|>',
  '<|eom_id|>',
  '<EOT>',
  '<|fim_pad|>',
  '<|repo_name|>',
  '<|file_sep|>',
  '<reponame>',
];

export interface TokenizerFiles {
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  bosTokenId: number | undefined;
  eosTokenId: number | undefined;
  /** The declared EOS and every other end-of-generation control token of the vocabulary. */
  endOfGenerationIds: number[];
  padTokenId: number | undefined;
}

export function buildTokenizerFiles(file: GgufFile, contextLength: number): TokenizerFiles {
  const meta = file.metadata;
  const model = meta.get('tokenizer.ggml.model');
  if (model !== 'gpt2') {
    throw new UnsupportedModelError(
      `The GGUF's tokenizer is "${String(model)}"; only byte-level BPE ("gpt2") tokenizers can be converted.`,
    );
  }
  const pre = String(meta.get('tokenizer.ggml.pre') ?? 'gpt2');
  const preTokenizer = PRE_TOKENIZERS[pre];
  if (!preTokenizer) {
    throw new UnsupportedModelError(
      `The GGUF's pre-tokenizer "${pre}" is not one the converter knows (${Object.keys(PRE_TOKENIZERS).join(', ')}).`,
    );
  }
  const tokens = strings(meta.get('tokenizer.ggml.tokens'), 'tokenizer.ggml.tokens');
  const merges = strings(meta.get('tokenizer.ggml.merges'), 'tokenizer.ggml.merges');
  const types = meta.get('tokenizer.ggml.token_type');
  const typeOf = (id: number) => (Array.isArray(types) ? Number(types[id]) : TokenType.Normal);
  const idOf = (key: string) => {
    const v = meta.get(key);
    return typeof v === 'number' && v >= 0 && v < tokens.length ? v : undefined;
  };

  const vocab: Record<string, number> = {};
  tokens.forEach((t, id) => {
    if (!(t in vocab)) vocab[t] = id;
  });
  const addedTokens = tokens.flatMap((content, id) => {
    const type = typeOf(id);
    if (type !== TokenType.Control && type !== TokenType.UserDefined) return [];
    return [
      {
        id,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: type === TokenType.Control,
      },
    ];
  });

  const bosTokenId = idOf('tokenizer.ggml.bos_token_id');
  const eosTokenId = idOf('tokenizer.ggml.eos_token_id');
  const padTokenId = idOf('tokenizer.ggml.padding_token_id');
  const addBos = meta.get('tokenizer.ggml.add_bos_token') === true && bosTokenId !== undefined;
  const bosText = bosTokenId !== undefined ? tokens[bosTokenId] : undefined;
  const postProcessor = addBos
    ? {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: bosText, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [
          { SpecialToken: { id: bosText, type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: bosText, type_id: 1 } },
          { Sequence: { id: 'B', type_id: 1 } },
        ],
        special_tokens: { [bosText!]: { id: bosText, ids: [bosTokenId], tokens: [bosText] } },
      }
    : { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };

  const tokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: null,
    pre_tokenizer: preTokenizer,
    post_processor: postProcessor,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
  const template = meta.get('tokenizer.chat_template');
  const tokenizerConfig: Record<string, unknown> = {
    add_bos_token: addBos,
    add_eos_token: false,
    bos_token: bosText ?? null,
    eos_token: eosTokenId !== undefined ? tokens[eosTokenId] : null,
    pad_token: padTokenId !== undefined ? tokens[padTokenId] : null,
    unk_token: null,
    clean_up_tokenization_spaces: false,
    model_max_length: contextLength,
    tokenizer_class: 'PreTrainedTokenizerFast',
  };
  if (typeof template === 'string') tokenizerConfig.chat_template = template;
  const endOfGenerationIds = [
    ...new Set([
      ...(eosTokenId !== undefined ? [eosTokenId] : []),
      ...addedTokens.filter((t) => t.special && END_OF_GENERATION.includes(t.content)).map((t) => t.id),
    ]),
  ];
  return { tokenizerJson, tokenizerConfig, bosTokenId, eosTokenId, endOfGenerationIds, padTokenId };
}
