import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChatTemplate, findChatTemplate } from '../../../src/core/model/chatTemplate';
import { tinyModelDir } from './tinyModel';

test("renders the model folder's own chat template with a generation prompt", () => {
  const config = JSON.parse(readFileSync(join(tinyModelDir(), 'tokenizer_config.json'), 'utf8'));
  const source = findChatTemplate(config);
  assert.ok(source, 'the tiny model has a chat template');
  const text = new ChatTemplate(source).render([{ role: 'user', content: 'What is 2+2?' }]);
  assert.ok(text.includes('<|im_start|>user\nWhat is 2+2?<|im_end|>'), text);
  assert.ok(text.endsWith('<|im_start|>assistant\n'), text);
});

test('finds named templates and chat_template.jinja, and reports none when absent', () => {
  const named = findChatTemplate({
    chat_template: [
      { name: 'tool_use', template: 'T' },
      { name: 'default', template: 'D' },
    ],
  });
  assert.equal(named?.template, 'D');
  assert.equal(findChatTemplate({}, '{{ messages[0].content }}')?.template, '{{ messages[0].content }}');
  assert.equal(findChatTemplate({}), undefined);
  const withTokens = findChatTemplate({ chat_template: '{{ bos_token }}x', bos_token: { content: '<s>' } });
  assert.equal(new ChatTemplate(withTokens!).render([]), '<s>x');
});
