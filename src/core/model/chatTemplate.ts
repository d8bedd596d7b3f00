/**
 * The model's own chat template, read from its folder (tokenizer_config.json `chat_template`,
 * or a `chat_template.jinja` file as newer exports write) and rendered with @huggingface/jinja.
 */
import { Template } from '@huggingface/jinja';
import type { ChatMessage } from './types';

export interface ChatTemplateSource {
  /** The template text. */
  template: string;
  /** Values templates commonly reference (`bos_token`, `eos_token`, ...). */
  specialTokens: Record<string, string>;
}

/** A compiled chat template. */
export class ChatTemplate {
  private readonly compiled: Template;

  constructor(private readonly source: ChatTemplateSource) {
    this.compiled = new Template(source.template);
  }

  /** The prompt text for `messages`, ending with the assistant turn's opening. */
  render(messages: ChatMessage[], addGenerationPrompt = true): string {
    return this.compiled.render({
      ...this.source.specialTokens,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      add_generation_prompt: addGenerationPrompt,
    });
  }
}

/** A special token in tokenizer_config.json is a string or an AddedToken object with `content`. */
function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return undefined;
}

/**
 * Finds the chat template in a parsed tokenizer_config.json (a string, or a list of named
 * templates of which "default" is used), or in the text of chat_template.jinja when given.
 * Returns undefined when the model has none: such a model only takes raw prompt strings.
 */
export function findChatTemplate(
  tokenizerConfig: Record<string, unknown>,
  templateFile?: string,
): ChatTemplateSource | undefined {
  let template: string | undefined;
  const raw = tokenizerConfig.chat_template;
  if (typeof raw === 'string') template = raw;
  else if (Array.isArray(raw)) {
    const named = raw.filter(
      (t): t is { name: string; template: string } =>
        !!t && typeof t === 'object' && typeof t.name === 'string' && typeof t.template === 'string',
    );
    template = (named.find((t) => t.name === 'default') ?? named[0])?.template;
  }
  if (template === undefined && templateFile !== undefined) template = templateFile;
  if (template === undefined) return undefined;

  const specialTokens: Record<string, string> = {};
  for (const key of ['bos_token', 'eos_token', 'pad_token', 'unk_token']) {
    const text = tokenText(tokenizerConfig[key]);
    if (text !== undefined) specialTokens[key] = text;
  }
  return { template, specialTokens };
}
