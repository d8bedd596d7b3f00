import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Tokenizer } from '@huggingface/tokenizers';
import { readGgufFile } from '../../../src/core/model/gguf/ggufFile';
import { buildTokenizerFiles } from '../../../src/core/model/gguf/tokenizerFiles';
import { pythonMissing, qwenGguf, runPython, smolLm2Gguf } from './ggufFixtures';

/** Strings that stress the pre-tokenizers: code, LaTeX, scripts, emoji, whitespace runs, special tokens. */
const BASE = [
  'Hello world',
  ' Hello  world ',
  'def is_prime(n):\n    if n < 2:\n        return False\n    for i in range(2, int(n**0.5)+1):\n        if n % i == 0:\n            return False\n    return True\n',
  'The integral $\\int_0^1 x^2\\,dx = \\frac{1}{3}$ and $\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}$.',
  '\\begin{align} a &= b \\\\ c &\\leq d \\end{align}',
  'Ünïcödé façade naïve café — “quotes” ‘single’ … 日本語のテキスト 中文 한국어 العربية עברית ελληνικά русский',
  'emoji 😀🎉👩‍💻🇫🇷 and symbols ∀x∈ℝ: x²≥0 ⇒ √x',
  '   leading spaces',
  'trailing spaces   ',
  'tabs\tand\ttabs\t\t',
  'lines\n\n\nblank\r\nwindows\r\n',
  "I'm sure you're right, they'll say it's OWN'T DON'T I'M YOU'RE",
  '12345678901234567890 3.14159 1e-10 0xFF 1,000,000',
  'x=1;y=2;z=x+y*3/4-5%6',
  '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  '<|endoftext|>text after',
  'a<|im_end|>b',
  'function f(a: number): string { return `${a}`; }',
  'SELECT * FROM users WHERE id = 42;',
  '    indented\n        more\n    back',
  '!!!???...,,,;;;',
  '@#$%^&*()_+-=[]{}|\\:";\'<>?,./~`',
  'mixed CASE words AND numbers123abc',
  'http://example.com/path?query=1&x=y#frag',
  '\u00a0nbsp\u2003emspace\u3000ideographic',
  'zero\u200bwidth\u200djoiner',
  'combining e\u0301 vs é',
  '  \n  \n',
  ' ',
  '\n',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  '               many spaces',
  'assert add(2, 3) == 5\nassert add(-1, 1) == 0',
  'Proof. Let $n = 2k+1$. Then $n^2 = 4k^2+4k+1 = 2(2k^2+2k)+1$, which is odd. $\\blacksquare$',
  '## Problem\nShow that...\n## Solution\n1. Step one.\n2. Step two.',
];
const SEPARATORS = ['', ' ', '\n', '  ', '\n\n', '\t'];
const STRINGS = [
  ...BASE,
  ...BASE.flatMap((s, i) => SEPARATORS.map((sep, j) => s + sep + BASE[(i * 7 + j * 3 + 1) % BASE.length])),
];

const missing = pythonMissing('llama_cpp');

function checkAgainstLlamaCpp(path: string): void {
  const files = buildTokenizerFiles(readGgufFile(path), 2048);
  const tokenizer = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
  const reference = JSON.parse(
    runPython(
      `import json, sys
from llama_cpp import Llama
llm = Llama(model_path=${JSON.stringify(path)}, vocab_only=True, verbose=False)
print(json.dumps([llm.tokenize(t.encode("utf-8"), add_bos=False, special=True) for t in json.load(sys.stdin)]))`,
      JSON.stringify(STRINGS),
    ),
  ) as number[][];
  const mismatches = STRINGS.flatMap((s, i) => {
    const ids = tokenizer.encode(s, { add_special_tokens: false }).ids;
    const back = tokenizer.decode(ids, { skip_special_tokens: false });
    return JSON.stringify(ids) === JSON.stringify(reference[i]) && back === s
      ? []
      : [JSON.stringify(s).slice(0, 60)];
  });
  assert.deepEqual(mismatches, [], `${mismatches.length} of ${STRINGS.length} strings tokenise differently`);
}

test(`SmolLM2's tokenizer.json gives llama.cpp's ids on ${STRINGS.length} strings and decodes back`, (t) => {
  const path = smolLm2Gguf();
  if (missing || !path) return t.skip(missing ?? 'the SmolLM2 GGUF is not here');
  checkAgainstLlamaCpp(path);
});

test(`Qwen2.5's tokenizer.json gives llama.cpp's ids on ${STRINGS.length} strings and decodes back`, (t) => {
  const path = qwenGguf();
  if (missing || !path) return t.skip(missing ?? 'no Qwen GGUF ($STEPWISE_QWEN_GGUF)');
  checkAgainstLlamaCpp(path);
});

test('special tokens are added tokens that decoding can skip; the chat template is carried', (t) => {
  const path = smolLm2Gguf();
  if (!path) return t.skip('the SmolLM2 GGUF is not here');
  const files = buildTokenizerFiles(readGgufFile(path), 2048);
  const tokenizer = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
  const ids = tokenizer.encode('<|im_start|>user\nHi<|im_end|>', { add_special_tokens: false }).ids;
  assert.equal(ids[0], 1);
  assert.equal(tokenizer.decode(ids, { skip_special_tokens: true }), 'user\nHi');
  assert.match(String(files.tokenizerConfig.chat_template), /im_start/);
  assert.equal(files.tokenizerConfig.eos_token, '<|im_end|>');
  assert.ok(files.endOfGenerationIds.includes(2) && files.endOfGenerationIds.includes(0));
});
