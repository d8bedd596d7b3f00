import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dpoPairs, generatePracticeSet, generatorRewards } from '../../../src/core/practice/loop';
import { runPracticeRounds } from '../../../src/core/practice/rounds';
import { scriptedModel } from '../helpers/scriptedModel';

const base = {
  questions: 2,
  judgePasses: 3,
  pairPasses: 2,
  bestOfN: 2,
  weights: { cons: 0.4, sep: 0.3, stab: 0.3 },
  thresholds: { cons: 0.8, sep: 0.1, stab: 0.7 },
};

/** A judge that scores careful (greedy/best-of-N) answers 9/10 and hot ones 2/10, consistently. */
function consistentWorld() {
  return scriptedModel((prompt, options) => {
    if (prompt.includes('practice problem'))
      return [
        'Problem: What is 2 + 3?',
        'Problem: What is 7 * 6?',
        'no problem here',
        'Problem: What is 2 + 3?',
      ];
    if (prompt.startsWith('Solve the following'))
      return (options.temperature ?? 0) > 1 ? 'random guess \\boxed{11}' : 'careful work \\boxed{5}';
    if (prompt.includes('grading an answer'))
      return prompt.includes('careful work') ? 'Good. \\boxed{9}' : 'Bad. \\boxed{2}';
    if (prompt.includes('comparing two answers')) {
      const a = prompt.split('Answer A:')[1].split('Answer B:')[0];
      return a.includes('careful work') ? '\\boxed{A}' : '\\boxed{B}';
    }
    return '';
  });
}

test('a consistent, discriminating judge keeps the questions and yields DPO pairs', async () => {
  const model = consistentWorld();
  const set = await generatePracticeSet({ ...base, generator: model });
  assert.equal(set.questions.length, 2, 'duplicates and unusable proposals are dropped');
  assert.equal(set.proposalsWithoutQuestion, 1);
  const q = set.questions[0];
  assert.deepEqual(
    q.answers.map((a) => [a.regime, a.strength]),
    [
      ['greedy', 'strong'],
      ['best-of-2', 'strong'],
      ['high-temperature', 'weak'],
    ],
  );
  assert.equal(q.scores['greedy'].length, 3, 'k judge passes per answer');
  // Two strong × one weak pairs, both orders, two passes each.
  assert.equal(q.pairJudgments.length, 2 * 2 * 2);
  assert.deepEqual(new Set(q.pairJudgments.map((j) => j.order)), new Set(['ab', 'ba']));
  assert.equal(q.reliability.rCons, 1);
  assert.ok(Math.abs(q.reliability.rSep! - 0.7) < 1e-9);
  assert.equal(q.reliability.rStab, 1);
  assert.equal(q.kept, true);
  const pairs = dpoPairs(set);
  assert.equal(pairs.length, 4);
  assert.ok(pairs.every((p) => p.chosen.includes('careful work') && p.rejected.includes('random guess')));
  assert.ok(pairs.every((p) => p.r_cons === 1 && p.r_stab === 1));
  assert.deepEqual(
    generatorRewards(set).map((r) => r.kept),
    [true, true],
  );
});

test('a judge with position bias is unstable and its questions are discarded', async () => {
  const biased = scriptedModel((prompt, options) => {
    if (prompt.includes('practice problem')) return 'Problem: What is 10 - 4?';
    if (prompt.startsWith('Solve the following')) return (options.temperature ?? 0) > 1 ? 'hot' : 'careful';
    if (prompt.includes('grading an answer')) return '\\boxed{5}';
    return '\\boxed{A}'; // always prefers whatever is shown first
  });
  const set = await generatePracticeSet({ ...base, questions: 1, generator: biased });
  const q = set.questions[0];
  assert.equal(q.kept, false);
  assert.ok(q.reliability.rStab < 0.7, `position bias must lower stability, got ${q.reliability.rStab}`);
  assert.ok(
    q.reasons.some((r) => r.startsWith('R_sep')),
    'identical scores give no separation',
  );
  assert.deepEqual(dpoPairs(set), []);
});

test('unparseable judge output is counted, not guessed', async () => {
  const model = scriptedModel((prompt) => {
    if (prompt.includes('practice problem')) return 'Problem: Name a prime number greater than 10.';
    if (prompt.includes('grading an answer')) return 'It looks fine to me.';
    return '\\boxed{13}';
  });
  const set = await generatePracticeSet({ ...base, questions: 1, bestOfN: 1, generator: model });
  assert.equal(set.questions[0].judgeFailures, 2 * 3);
  assert.equal(set.questions[0].kept, false);
});

test('cancellation stops the loop', async () => {
  const controller = new AbortController();
  const model = consistentWorld();
  controller.abort();
  await assert.rejects(generatePracticeSet({ ...base, generator: model, signal: controller.signal }));
});

test('practice rounds: each round runs the loop, and the next round is shown the questions the last one kept', async () => {
  const model = consistentWorld();
  const rounds: number[] = [];
  const sets = await runPracticeRounds({
    ...base,
    generator: model,
    rounds: 2,
    onRound: (round, set) => {
      rounds.push(round);
      assert.equal(set.questions.length, 2);
    },
  });
  assert.deepEqual(rounds, [1, 2]);
  assert.equal(sets.length, 2);
  assert.ok(sets.every((s) => s.questions.every((q) => q.kept)));
  const generatorPrompts = model.calls.map((c) => c.prompt).filter((p) => p.includes('practice problem'));
  assert.equal(generatorPrompts.length, 2);
  assert.doesNotMatch(generatorPrompts[0], /Example 1:/);
  assert.match(generatorPrompts[1], /Example 1: What is 2 \+ 3\?/);
  assert.match(generatorPrompts[1], /Example 2: What is 7 \* 6\?/);
});

test('rounds with a retrained question generator: it proposes the next round, the solver and judge stay, and what the loop was handed it disposes', async () => {
  const model = consistentWorld();
  let modelDisposed = 0;
  model.dispose = async () => void modelDisposed++;
  const disposed: string[] = [];
  const retrained = (name: string, question: string) => {
    const m = scriptedModel(
      (prompt) =>
        prompt.includes('practice problem')
          ? [`Problem: ${question}`]
          : 'the generator must not solve or judge',
      name,
    );
    m.dispose = async () => void disposed.push(name);
    return m;
  };
  const handed = [retrained('after-1', 'What is 9 - 4?'), retrained('after-2', 'What is 8 / 2?')];
  const asked: { round: number; by: string; questions: number }[] = [];
  const sets = await runPracticeRounds({
    ...base,
    generator: model,
    rounds: 3,
    nextGenerator: async (round, set, generator) => {
      asked.push({ round, by: generator.info.name, questions: set.questions.length });
      // Round 2's generator is still current when round 3's is made: it must not be disposed yet.
      assert.deepEqual(disposed, []);
      return handed[round - 1];
    },
  });
  assert.deepEqual(asked, [
    { round: 1, by: 'scripted', questions: 2 },
    { round: 2, by: 'after-1', questions: 1 },
  ]);
  assert.deepEqual(
    sets.map((s) => s.questions.map((q) => q.question)),
    [['What is 2 + 3?', 'What is 7 * 6?'], ['What is 9 - 4?'], ['What is 8 / 2?']],
  );
  for (const m of handed)
    assert.deepEqual(
      m.calls.filter((c) => !c.prompt.includes('practice problem')),
      [],
      'a retrained generator only proposes',
    );
  // The given model solved and judged every round's questions, so they were kept as before.
  assert.ok(sets.every((s) => s.questions.every((q) => q.kept)));
  assert.deepEqual(disposed, ['after-1', 'after-2']);
  assert.equal(modelDisposed, 0, "the caller's generator is the caller's to dispose");
});
