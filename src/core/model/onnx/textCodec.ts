/**
 * Text <-> token ids for one model folder: its tokenizer.json (pure-JS @huggingface/tokenizers)
 * and its chat template.
 */
import type { Tokenizer } from '@huggingface/tokenizers';
import { ChatTemplate, findChatTemplate } from '../chatTemplate';
import { ModelError, type ModelInput } from '../types';
import { readJson, type ModelFolder } from './modelFolder';
import { loadCompactTokenizer } from './tokenizerTables';

export class TextCodec {
  private readonly tokenizer: Tokenizer;
  private readonly chatTemplate: ChatTemplate | undefined;
  /** EOS ids from the configs plus the tokenizer's own eos_token. */
  readonly eosTokenIds: ReadonlySet<number>;

  constructor(folder: ModelFolder) {
    // Parsed here, not with the folder, so that the parse is garbage once the tables are built.
    const json = readJson(folder.tokenizerFile);
    try {
      this.tokenizer = loadCompactTokenizer(json, folder.tokenizerConfig);
    } catch (e) {
      throw new ModelError(
        `tokenizer.json in ${folder.dir} cannot be loaded: ${(e as Error).message}.`,
        'model-folder',
        'Use the tokenizer.json that was exported with the model.',
      );
    }
    const source = findChatTemplate(folder.tokenizerConfig, folder.chatTemplateFile);
    try {
      this.chatTemplate = source ? new ChatTemplate(source) : undefined;
    } catch (e) {
      throw new ModelError(
        `The chat template of ${folder.name} cannot be parsed: ${(e as Error).message}.`,
        'model-folder',
        'Fix chat_template in tokenizer_config.json, or send raw prompt strings instead of messages.',
      );
    }
    const eos = new Set(folder.eosTokenIds);
    const eosText = source?.specialTokens.eos_token;
    const eosId = eosText !== undefined ? this.tokenizer.token_to_id(eosText) : undefined;
    if (eosId !== undefined) eos.add(eosId);
    this.eosTokenIds = eos;
  }

  /**
   * Token ids of a prompt. Messages go through the chat template, whose text already holds any
   * special tokens the model expects; a raw string gets the tokenizer's own special tokens.
   */
  encodeInput(input: ModelInput): number[] {
    if (typeof input === 'string') return this.tokenizer.encode(input).ids;
    if (!this.chatTemplate) {
      throw new ModelError(
        'This model has no chat template, so it cannot take chat messages.',
        'model-folder',
        'Send a raw prompt string, or use a model folder whose tokenizer_config.json has chat_template.',
      );
    }
    let text: string;
    try {
      text = this.chatTemplate.render(input);
    } catch (e) {
      throw new ModelError(
        `The chat template of this model failed on these messages: ${(e as Error).message}.`,
        'internal',
        'Check the message roles; some templates accept only alternating user/assistant turns.',
      );
    }
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** Token ids of a continuation appended after a prompt (no special tokens added). */
  encodeContinuation(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** Tokens the tokenizer knows (the model's vocabulary may be padded beyond it). */
  get vocabSize(): number {
    let max = -1;
    for (const id of this.tokenizer.get_vocab(true).values()) if (id > max) max = id;
    return max + 1;
  }

  decode(ids: number[]): string {
    if (ids.length === 0) return '';
    return this.tokenizer.decode(ids, { skip_special_tokens: true });
  }
}
