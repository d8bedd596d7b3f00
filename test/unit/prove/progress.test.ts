import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StageProgressMeter } from '../../../src/core/prove/progress';
import type { ProveEvent } from '../../../src/core/prove/events';

const token = (sequence: number): ProveEvent => ({
  type: 'token',
  iteration: 0,
  phase: 'generate',
  candidate: sequence,
  sequence,
  text: 'x',
});
const phase = (p: 'generate' | 'verify' | 'step-score'): ProveEvent => ({
  type: 'phase',
  iteration: 0,
  phase: p,
  candidate: null,
});

test('the estimate is the remaining budget at the measured speed of the longest sequence', () => {
  const meter = new StageProgressMeter({ generate: 100, judge: 40 });
  meter.observe(phase('generate'), 0);
  // Two sequences of a batch, 10 tokens each, one token of each every 100 ms.
  for (let i = 0; i < 10; i++) {
    meter.observe(token(0), 1000 + i * 100);
    meter.observe(token(1), 1000 + i * 100);
  }
  const p = meter.snapshot(1900);
  assert.equal(p.tokens, 20);
  assert.equal(p.budget, 100);
  assert.ok(Math.abs(p.tokensPerSecond! - 10) < 1e-9, String(p.tokensPerSecond));
  assert.ok(Math.abs(p.secondsLeftAtMost! - 9) < 1e-9, String(p.secondsLeftAtMost));
  assert.match(
    meter.describe(1900, 0),
    /round 1: writing the proof · 20 tokens · 10\.0 tok\/s · at most 9 s left/,
  );
});

test('a new stage starts a new measurement; a stage without tokens has no estimate', () => {
  const meter = new StageProgressMeter({ generate: 100, judge: 40 });
  meter.observe(phase('generate'), 0);
  meter.observe(token(0), 10);
  meter.observe(token(0), 20);
  meter.observe(phase('step-score'), 5000);
  const p = meter.snapshot(8000);
  assert.equal(p.tokens, 0);
  assert.equal(p.budget, null);
  assert.equal(p.secondsLeftAtMost, null);
  assert.equal(p.elapsedSeconds, 3);
  assert.match(meter.describe(8000), /scoring the steps · 3 s/);
  meter.observe(phase('verify'), 8000);
  assert.equal(meter.snapshot(8000).budget, 40);
});

test('a check starts in step scoring: its notification never says it is writing a proof', () => {
  const meter = new StageProgressMeter({ generate: 0, judge: 40 }, 'step-score');
  meter.observe({ type: 'run-start', runId: 'r', problem: 'p', options: {} } as unknown as ProveEvent, 0);
  assert.equal(meter.snapshot(0).budget, null);
  assert.match(meter.describe(2000), /^scoring the steps · 2 s$/);
});
