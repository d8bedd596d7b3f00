/**
 * A served model's tokenizer read from a local Hugging Face folder (tokenizer.json,
 * tokenizer_config.json, chat_template.jinja): exact token counts, and the chat template for
 * servers that do not expose theirs (llama-cpp-python), which plans need to continue a chat
 * through `/v1/completions`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { ChatTemplate, findChatTemplate } from '../chatTemplate';
import { readJson } from '../onnx/modelFolder';
import { ModelError, type ChatMessage } from '../types';

export class LocalTokenizer {
  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly template: ChatTemplate | undefined,
  ) {}

  /** Loads the folder; a folder without tokenizer files is a ModelError that says what is missing. */
  static load(dir: string): LocalTokenizer {
    const tokenizerPath = join(dir, 'tokenizer.json');
    const configPath = join(dir, 'tokenizer_config.json');
    if (!existsSync(tokenizerPath) || !existsSync(configPath)) {
      throw new ModelError(
        `The tokenizer folder ${dir} lacks tokenizer.json or tokenizer_config.json.`,
        'model-folder',
        "Point it at the model's Hugging Face folder (the one its GGUF was converted from), which holds both files.",
      );
    }
    const config = readJson(configPath);
    let tokenizer: Tokenizer;
    try {
      tokenizer = new Tokenizer(readJson(tokenizerPath), config);
    } catch (e) {
      throw new ModelError(
        `tokenizer.json in ${dir} cannot be loaded: ${(e as Error).message}.`,
        'model-folder',
        "Use the model's own tokenizer.json.",
      );
    }
    const templateFile = join(dir, 'chat_template.jinja');
    const source = findChatTemplate(
      config,
      existsSync(templateFile) ? readFileSync(templateFile, 'utf8') : undefined,
    );
    return new LocalTokenizer(tokenizer, source ? new ChatTemplate(source) : undefined);
  }

  count(text: string): number {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  }

  /** The prompt text of `messages`, or undefined when the folder has no chat template. */
  render(messages: ChatMessage[]): string | undefined {
    return this.template?.render(messages);
  }
}
