import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { UsageError } from '../../../src/cli/command';
import { modelConfigFrom, parseWithModel } from '../../../src/cli/modelOptions';

const env = { STEPWISE_MODEL_DIR: '/models/default' };

test('a local model keeps its prefix cache unless --no-prefix-cache says otherwise', () => {
  const parse = (argv: string[]) => modelConfigFrom(parseWithModel(argv, {}).values, env);
  assert.deepEqual(
    { ...parse([]), modelDir: undefined },
    { backend: 'onnx', modelDir: undefined, variant: 'q4', device: 'auto', prefixCache: true },
  );
  const off = parse(['--no-prefix-cache']);
  assert.equal(off.backend === 'onnx' && off.prefixCache, false);
});

test('--no-prefix-cache with an endpoint is a usage error that says why', () => {
  const values = parseWithModel(
    ['--endpoint', 'http://127.0.0.1:8080/v1', '--model', 'm', '--no-prefix-cache'],
    {},
  ).values;
  assert.throws(
    () => modelConfigFrom(values, env),
    (e: unknown) => e instanceof UsageError && /server keeps its own prompt cache/.test(e.message),
  );
});

test('--assertion-grammar picks the endpoint grammar, defaults to auto, and is refused elsewhere', () => {
  const parse = (argv: string[]) => modelConfigFrom(parseWithModel(argv, {}).values, env);
  const endpoint = ['--endpoint', 'http://127.0.0.1:8080/v1', '--model', 'm'];
  const grammarOf = (argv: string[]) => {
    const c = parse(argv);
    return c.backend === 'openai' ? c.assertionGrammar : undefined;
  };
  assert.equal(grammarOf(endpoint), 'auto');
  assert.equal(grammarOf([...endpoint, '--assertion-grammar', 'lines']), 'lines');
  assert.throws(
    () => parse([...endpoint, '--assertion-grammar', 'loose']),
    (e: unknown) => e instanceof UsageError && /auto, expressions or lines, not "loose"/.test(e.message),
  );
  assert.throws(
    () => parse(['--assertion-grammar', 'lines']),
    (e: unknown) => e instanceof UsageError && /--assertion-grammar is for --endpoint/.test(e.message),
  );
});

test('--variant fast loads the -fast folder beside the model, and says how to install it when absent', () => {
  const root = mkdtempSync(join(tmpdir(), 'stepwise-variant-'));
  try {
    const exactDir = join(root, 'qwen');
    mkdirSync(exactDir);
    const parse = (argv: string[]) =>
      modelConfigFrom(parseWithModel(['--model-dir', exactDir, ...argv], {}).values, env);
    assert.throws(
      () => parse(['--variant', 'fast']),
      (e: Error) => e instanceof UsageError && /models install .* --variant fast/.test(e.message),
    );
    mkdirSync(`${exactDir}-fast`);
    const fast = parse(['--variant', 'fast']);
    assert.deepEqual(fast.backend === 'onnx' && [fast.modelDir, fast.variant], [`${exactDir}-fast`, 'q4']);
    const exact = parse(['--variant', 'exact']);
    assert.deepEqual(exact.backend === 'onnx' && [exact.modelDir, exact.variant], [exactDir, 'q4']);
    assert.throws(() => parse(['--variant', 'quick']), /exact, fast, fp32, q8 or q4/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
