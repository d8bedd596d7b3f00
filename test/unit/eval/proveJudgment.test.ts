import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairedDifference, summarizeJudgment } from '../../../src/core/eval/proveJudgment';
import type { CandidateOutcome, ProveItemResult } from '../../../src/core/eval/proveEval';
import { splitOf } from '../../../src/core/judgment/split';
import { mulberry32 } from '../../../src/core/math/stats';
import { oneRoundItem } from '../helpers/proveItem';

/** Problems whose right candidates agree on the reference and score higher with the verifier. */
function items(count: number): ProveItemResult[] {
  const random = mulberry32(3);
  return Array.from({ length: count }, (_, i) => {
    const candidates: CandidateOutcome[] = Array.from({ length: 4 }, () => {
      const correct = random() < 0.4;
      return {
        answer: correct ? '7' : String(10 + Math.floor(random() * 50)),
        correct,
        formatReward: 1,
        selfScore: random() < 0.8 ? 1 : 0.5,
        verifierScore: Math.min(1, Math.max(0, (correct ? 0.65 : 0.45) + (random() - 0.5) * 0.4)),
        stepScore: null,
        finishReason: random() < 0.2 ? 'length' : 'eos',
      };
    });
    return oneRoundItem(`problem-${i}`, '7', candidates);
  });
}

test('judging figures are computed on held-out problems only, by a calibrator fitted on the others', () => {
  const all = items(200);
  const m = summarizeJudgment(all);
  const heldOut = all.filter((it) => splitOf(it.id) === 'held-out').length;
  assert.equal(m.split.heldOut.problems, heldOut);
  assert.equal(m.split.fit.problems, 200 - heldOut);
  assert.equal(m.fitted?.source.problems, 200 - heldOut);
  assert.equal(m.signals.pCorrect.count, heldOut * 4);
  // Agreement and the verifier carry the signal here, so their combination ranks well and picks well.
  assert.ok(m.signals.pCorrect.auroc! > 0.8, `P(correct) AUROC ${m.signals.pCorrect.auroc}`);
  assert.ok(m.bestOfN.picks.pCorrect.value! >= m.bestOfN.picks.self.value!);
  // Given a calibrator, nothing is fitted and the file is named.
  const given = summarizeJudgment(all, { calibrator: m.fitted!, file: 'c.json' });
  assert.equal(given.fitted, null);
  assert.equal(given.calibrator.source, 'c.json');
  assert.deepEqual(given.signals.pCorrect, m.signals.pCorrect);
});

test('the paired difference of two picks has a bootstrap interval around its mean', () => {
  const a = [true, true, true, false, true, true, false, true];
  const b = [false, true, false, false, true, false, false, true];
  const d = pairedDifference(a, b);
  assert.equal(d.mean, 3 / 8);
  assert.ok(d.low! <= d.mean! && d.mean! <= d.high!);
  assert.ok(d.low! >= 0, 'b is never right where a is wrong: the difference cannot go below 0');
  assert.deepEqual(pairedDifference([], []), { mean: null, low: null, high: null });
});

test('a calibrator that lists the problems it was fitted on is judged on every other problem', () => {
  const all = items(200);
  const fitted = summarizeJudgment(all.slice(0, 100)).fitted!;
  const listed = fitted.source.fitProblems as string[];
  assert.ok(listed.length > 0 && listed.every((p) => splitOf(p) === 'fit'));
  // A slice the calibrator never saw counts in full, fit side of the hash included.
  const unseen = summarizeJudgment(all.slice(100), { calibrator: fitted, file: 'c.json' });
  assert.equal(unseen.split.heldOut.problems, 100);
  assert.equal(unseen.split.fit.problems, 0);
  assert.equal(unseen.signals.pCorrect.count, 400);
  // The problems it was fitted on never count as held out.
  const again = summarizeJudgment(all.slice(0, 100), { calibrator: fitted, file: 'c.json' });
  assert.equal(again.split.fit.problems, listed.length);
  assert.equal(again.split.heldOut.problems, 100 - listed.length);
  // Without the list (a file from before it was kept) the hash split decides.
  const { fitProblems: _dropped, ...source } = fitted.source;
  const unlisted = summarizeJudgment(all.slice(100), { calibrator: { ...fitted, source }, file: 'c.json' });
  assert.equal(
    unlisted.split.heldOut.problems,
    all.slice(100).filter((it) => splitOf(it.id) === 'held-out').length,
  );
});

test('on the hash split a given calibrator is judged on the problems a fitted one would be, and never on its own', () => {
  const all = items(200);
  const fitted = summarizeJudgment(all.slice(0, 100));
  // Fitted elsewhere (problems 0–99): on problems 100–199 its own rule holds out all of them, the
  // hash split only the held-out side, the side a calibrator fitted on 100–199 is judged on.
  const fittedHere = summarizeJudgment(all.slice(100));
  const onHash = summarizeJudgment(all.slice(100), { calibrator: fitted.fitted!, file: 'c.json' }, null, {
    hashSplit: true,
  });
  assert.equal(onHash.split.heldOut.problems, fittedHere.split.heldOut.problems);
  assert.ok(onHash.split.heldOut.problems < 100);
  assert.equal(onHash.signals.pCorrect.count, fittedHere.signals.pCorrect.count);
  // A calibrator fitted on a problem the hash split holds out is refused, not judged there.
  const leaky = {
    ...fitted.fitted!,
    source: { ...fitted.fitted!.source, fitProblems: all.map((it) => it.id) },
  };
  assert.throws(
    () => summarizeJudgment(all.slice(100), { calibrator: leaky, file: 'c.json' }, null, { hashSplit: true }),
    /a held-out problem of the hash split/,
  );
});
