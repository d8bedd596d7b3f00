import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../../src/cli/command';
import { judgeFlagOptions, proveFlagOptions } from '../../../src/cli/proveFlags';
import { resolveProveOptions } from '../../../src/core/prove/prove';

test("prove's flags map onto Prove's options; absent flags take the core's defaults", () => {
  const given = proveFlagOptions(
    { iterations: '2', candidates: '3', 'rerank-by': 'prm', 'no-meta': true, free: true, seed: '7' },
    { noStepScorer: false, temperature: 0 },
  );
  const resolved = resolveProveOptions(given);
  assert.equal(resolved.maxIterations, 2);
  assert.equal(resolved.candidates, 3);
  assert.equal(resolved.rerankBy, 'prm');
  assert.equal(resolved.metaVerify, false);
  assert.equal(resolved.constrained, false);
  assert.equal(resolved.seed, 7);
  assert.equal(resolved.temperature, 0);
  // As JSON (how a run records them): optional options left out read as absent.
  const json = (o: object) => JSON.parse(JSON.stringify(o)) as unknown;
  const defaults = json(resolveProveOptions({}));
  assert.deepEqual(
    json(resolveProveOptions(proveFlagOptions({}, { noStepScorer: false, temperature: undefined }))),
    defaults,
  );
});

test('check and prove read the judging flags alike; with nothing to score steps they are off', () => {
  const flags = { 'verifier-passes': '3', 'no-step-scores': false };
  const prove = proveFlagOptions(flags, { noStepScorer: true, temperature: undefined });
  const check = judgeFlagOptions(flags, true);
  assert.deepEqual(check, { verifierPasses: 3, metaVerify: undefined, stepScores: false });
  assert.equal(prove.verifierPasses, check.verifierPasses);
  assert.equal(prove.stepScores, false);
  assert.equal(judgeFlagOptions({}, false).stepScores, undefined);
});

test('a bad flag value is a usage error that names the flag', () => {
  assert.throws(
    () => proveFlagOptions({ 'rerank-by': 'votes' }, { noStepScorer: false, temperature: undefined }),
    (e: unknown) =>
      e instanceof UsageError && /--rerank-by must be one of p-correct, prm, verifier, self/.test(e.message),
  );
  assert.throws(() => judgeFlagOptions({ 'verifier-passes': '0' }, false), UsageError);
});
