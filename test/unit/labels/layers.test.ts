import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currentLabels, type LabelRecord } from '../../../src/core/labels/index';

let n = 0;
function record(source: LabelRecord['source'], rating: LabelRecord['rating'], stepIndex = 0): LabelRecord {
  n++;
  return {
    schemaVersion: 1,
    id: `r${n}`,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    problemId: 'p',
    solutionId: 's',
    stepIndex,
    stepHash: '0123456789abcdef',
    stepText: 'x = 1',
    rating,
    source,
  };
}

test("a person's label outranks an automatic one for the same step, whichever came later", () => {
  const human = record('editor', -1);
  const auto = record('auto-completion', 1);
  assert.equal(currentLabels([human, auto]).get('s#0')?.id, human.id);
  assert.equal(currentLabels([auto, human]).get('s#0')?.id, human.id);
});

test('an automatic label stands where no person labelled the step', () => {
  const auto = record('auto-verifier', 1, 1);
  const human = record('panel', -1, 0);
  const current = currentLabels([auto, human]);
  assert.equal(current.get('s#1')?.source, 'auto-verifier');
  assert.equal(current.get('s#0')?.source, 'panel');
});

test("retracting a person's label shows the automatic one again; a new automatic label replaces the old", () => {
  const auto = record('auto-completion', -1);
  const human = record('editor', 1);
  const retract = record('editor', null);
  assert.equal(currentLabels([auto, human, retract]).get('s#0')?.id, auto.id);
  const relabel = record('auto-completion', 1);
  assert.equal(currentLabels([auto, relabel]).get('s#0')?.rating, 1);
});
