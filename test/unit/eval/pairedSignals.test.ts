import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairedSignalDifferences } from '../../../src/core/eval/pairedSignals';
import type { CandidateOutcome, ProveItemResult } from '../../../src/core/eval/proveEval';
import { mulberry32 } from '../../../src/core/math/stats';
import { oneRoundItem } from '../helpers/proveItem';

/**
 * The same candidates twice: `informative` verifier scores that separate right from wrong, and
 * noise. Answers, correctness and self-scores are identical in both, as with the same seeds.
 */
function journals(count: number): { noisy: ProveItemResult[]; informative: ProveItemResult[] } {
  const random = mulberry32(5);
  const noisy: ProveItemResult[] = [];
  const informative: ProveItemResult[] = [];
  for (let i = 0; i < count; i++) {
    const base: CandidateOutcome[] = Array.from({ length: 4 }, () => {
      const correct = random() < 0.3;
      return {
        answer: correct ? '7' : String(10 + Math.floor(random() * 50)),
        correct,
        formatReward: 1,
        selfScore: random() < 0.5 ? 1 : 0,
        verifierScore: null,
        stepScore: null,
        finishReason: 'eos',
      };
    });
    noisy.push(
      oneRoundItem(
        `p${i}`,
        '7',
        base.map((c) => ({ ...c, verifierScore: random() })),
      ),
    );
    informative.push(
      oneRoundItem(
        `p${i}`,
        '7',
        base.map((c) => ({ ...c, verifierScore: (c.correct ? 0.6 : 0.3) + random() * 0.3 })),
      ),
    );
  }
  return { noisy, informative };
}

test('a verifier that separates right from wrong beats noise on the same problems, beyond the paired interval', () => {
  const { noisy, informative } = journals(60);
  const p = pairedSignalDifferences(informative, noisy);
  assert.equal(p.problems, 60);
  assert.deepEqual(p.candidates, { a: 240, b: 240 });
  const v = p.signals.verifierScore;
  assert.ok(v.a! > 0.85 && v.b! < 0.65, `AUROC ${v.a} against ${v.b}`);
  assert.ok(v.interval!.low > 0, `interval ${JSON.stringify(v.interval)}`);
  // What both journals share is the same signal: no difference, and its interval is a point at 0.
  assert.equal(p.signals.selfScore.difference, 0);
  assert.deepEqual(p.signals.agreement.interval, { low: 0, high: 0 });
  // Signals neither journal measured are not compared.
  assert.deepEqual(p.signals.metaScore.candidates, { a: 0, b: 0 });
  assert.equal(p.signals.metaScore.difference, null);
});

test('only problems both journals finished are compared, whatever candidates each holds', () => {
  const { noisy, informative } = journals(10);
  // Journal B lost p8 and p9, and its p3 has one candidate only (a different run of the problem).
  const b = noisy
    .slice(0, 8)
    .map((it) =>
      it.id === 'p3'
        ? { ...it, rounds: [{ ...it.rounds[0], candidates: it.rounds[0].candidates.slice(0, 1) }] }
        : it,
    );
  const p = pairedSignalDifferences(informative, b);
  assert.equal(p.problems, 8);
  assert.deepEqual(p.candidates, { a: 32, b: 29 });
  // Agreement needs two candidates: B's lone candidate of p3 has none to agree with.
  assert.deepEqual(p.signals.agreement.candidates, { a: 32, b: 28 });
});
