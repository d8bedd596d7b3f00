/**
 * The model the test suites run on: SmolLM2-135M-Instruct, small enough for a 2-core CI machine,
 * as built by scripts/build-default-model.sh (ONNX fp32/q8/q4) during setup.sh's test tools. The
 * product's default model (Qwen2.5-Coder-0.5B-Instruct, see src/core/model/defaults.ts) is several
 * times slower, so every suite that runs a real model points at this one explicitly.
 *   STEPWISE_TEST_MODEL_DIR  another folder for the tests (default: the user cache's SmolLM2 build)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { modelsRoot } from '../src/core/model/defaults';
import { findPackageRoot } from '../src/core/resources';

export const TEST_MODEL_NAME = 'SmolLM2-135M-Instruct';

/** The weights the tests load: fp32, the variant the suites were written against. */
export const TEST_MODEL_VARIANT = 'fp32';

/** Where the test model is built: $STEPWISE_TEST_MODEL_DIR, else the user cache. */
export function testModelDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STEPWISE_TEST_MODEL_DIR || join(modelsRoot(env), TEST_MODEL_NAME);
}

/**
 * The test model's folder when it is built (its fp32 graph is there), else undefined; a build in
 * the repository's .cache/models is used too.
 */
export function builtTestModelDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return [testModelDir(env), join(findPackageRoot(), '.cache', 'models', TEST_MODEL_NAME)].find((dir) =>
    existsSync(join(dir, 'onnx', 'model.onnx')),
  );
}

/**
 * What the extension host of the integration and UI suites is given so that "the default model"
 * there is the test model: the folder through $STEPWISE_MODEL_DIR, the variant as a setting.
 */
export function testModelEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { STEPWISE_MODEL_DIR: testModelDir(env) };
}
export const TEST_MODEL_SETTINGS = { 'stepwise.model.onnx.variant': TEST_MODEL_VARIANT };
