import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  defaultPromptDir,
  loadPrompt,
  parsePromptFile,
  PROMPT_NAMES,
  promptOverrides,
  promptsDigest,
  renderPrompt,
} from '../../../src/core/prove/prompts';
import { scratchDir } from '../scratchDir';

test('every shipped prompt loads from the package root, not from the compiled folder', () => {
  assert.equal(defaultPromptDir().endsWith(path.join('prompts', 'prove')), true);
  assert.equal(defaultPromptDir().includes(`${path.sep}out${path.sep}`), false);
  for (const name of PROMPT_NAMES) assert.ok(loadPrompt(name).body.length > 50, name);
});

test('the generator prompt states the output protocol the parser checks', () => {
  const body = loadPrompt('generator').body;
  for (const part of [
    '## Solution',
    '## Self Evaluation',
    'Here is my evaluation of the solution:',
    'Based on my evaluation, the final overall score should be: \\boxed{X}',
  ]) {
    assert.ok(body.includes(part), part);
  }
});

test('the verifier rubrics declare their scale in front matter', () => {
  assert.equal(loadPrompt('verifier').meta.scale, 'unit');
  assert.equal(loadPrompt('verifier-olympiad').meta.scale, 'olympiad');
});

test('a prompt in the override folder wins; the others still come from the package', () => {
  const dir = scratchDir('stepwise-prompts-');
  fs.writeFileSync(path.join(dir, 'generator.md'), '---\nrole: mine\n---\nProve: {{problem}}\n');
  assert.equal(renderPrompt(loadPrompt('generator', dir), { problem: 'x > 0' }), 'Prove: x > 0');
  assert.equal(loadPrompt('generator', dir).meta.role, 'mine');
  assert.notEqual(loadPrompt('refine', dir).file.startsWith(dir), true);
});

test('rendering fills placeholders (even with $ signs) and names a placeholder it cannot fill', () => {
  const template = parsePromptFile('verifier', 'mine.md', 'P: {{problem}}\nQ: {{ proof }}');
  assert.equal(renderPrompt(template, { problem: '$$a$&$', proof: 'q' }), 'P: $$a$&$\nQ: q');
  assert.throws(() => renderPrompt(template, { problem: 'p' }), /mine\.md uses \{\{proof\}\}/);
});

test('the prompts digest changes with any prompt an evaluation uses, and only with those', () => {
  const dir = scratchDir('stepwise-prompts-');
  const shipped = promptsDigest(['generator', 'verifier']);
  assert.equal(promptsDigest(['generator', 'verifier'], dir), shipped, 'an empty override folder');
  fs.writeFileSync(path.join(dir, 'refine.md'), 'Refine: {{problem}}\n');
  assert.equal(promptsDigest(['generator', 'verifier'], dir), shipped, 'a prompt it does not use');
  fs.writeFileSync(path.join(dir, 'verifier.md'), 'Grade: {{problem}} {{proof}}\n');
  assert.notEqual(promptsDigest(['generator', 'verifier'], dir), shipped);
});

test('a prompt folder that is missing or overrides nothing is refused; one that overrides says which', () => {
  const dir = scratchDir('stepwise-prompts-');
  assert.throws(() => promptOverrides(path.join(dir, 'nope')), /does not exist/);
  fs.writeFileSync(path.join(dir, 'notes.md'), 'not a prompt\n');
  assert.throws(() => promptOverrides(dir), /holds none of the prove prompts \(generator\.md, refine\.md/);
  fs.writeFileSync(path.join(dir, 'verifier.md'), 'Grade: {{problem}} {{proof}}\n');
  assert.deepEqual(promptOverrides(dir), ['verifier']);
});
