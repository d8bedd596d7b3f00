// Puts two `stepwise eval prove` results side by side (bench/prove-shared-prefix.sh): the shipped
// judge prompts and the ones laid out for a prompt cache, on the same problems and seeds.
//   node bench/prove-shared-prefix-summary.mjs SHIPPED.json SHARED.json OUT.json
import * as fs from 'node:fs';
import { itemsFileOf, journalItems } from './journal-items.mjs';

const [shippedPath, sharedPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: node bench/prove-shared-prefix-summary.mjs SHIPPED.json SHARED.json OUT.json');
  process.exit(2);
}
const round = (x, d) => (x == null ? null : Math.round(x * 10 ** d) / 10 ** d);
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** P(score of a right answer > score of a wrong one), ties ½; null without both kinds. */
function auroc(points) {
  const pos = points.filter((p) => p.correct);
  const neg = points.filter((p) => !p.correct);
  if (!pos.length || !neg.length) return null;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p.score > n.score ? 1 : p.score === n.score ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

function arm(name, resultPath) {
  const result = JSON.parse(fs.readFileSync(resultPath, 'utf8'));
  const items = journalItems(itemsFileOf(resultPath))
    .filter((r) => r.result?.status === 'completed')
    .map((r) => r.result);
  const candidates = items.flatMap((r) => r.rounds.flatMap((round) => round.candidates));
  const judged = (key) =>
    candidates.filter((c) => typeof c[key] === 'number').map((c) => ({ score: c[key], correct: c.correct }));
  const phase = (key) => round(mean(items.map((r) => (r.phaseMs?.[key] ?? 0) / 1000)), 1);
  return {
    arm: name,
    prompts: name === 'shipped' ? 'prompts/prove (shipped)' : 'bench/prompts/shared-prefix',
    model: result.model.name,
    problems: items.length,
    right_answers: items.filter((r) => r.final?.correct).length,
    rounds_per_problem: round(mean(items.map((r) => r.rounds.length)), 2),
    seconds_per_problem: round(mean(items.map((r) => r.ms / 1000)), 1),
    phase_seconds_per_problem: {
      generate: phase('generate'),
      verify: phase('verify'),
      meta_verify: phase('metaVerify'),
    },
    verifier_auroc: round(auroc(judged('verifierScore')), 3),
    self_score_auroc: round(auroc(judged('selfScore')), 3),
    first_rounds: new Map(items.map((r) => [r.id, r.rounds[0]?.candidates[0]])),
  };
}

const shipped = arm('shipped', shippedPath);
const shared = arm('shared-prefix', sharedPath);
// The generator prompt is the same in both arms: where a problem's first proof gave the same answer
// in both, the two verifiers judged (almost always) the same proof.
const paired = [...shipped.first_rounds]
  .map(([id, a]) => [a, shared.first_rounds.get(id)])
  .filter(([a, b]) => a && b && a.answer === b.answer && a.verifierScore != null && b.verifierScore != null);
const out = {
  benchmark: 'prove-shared-prefix',
  date: new Date().toISOString(),
  what: 'stepwise eval prove on the first MATH-500 problems with the default local model (meta-verification on, step scores off, up to 2 rounds), shipped judge prompts against the same prompts with the problem and proof first',
  arms: [shipped, shared].map(({ first_rounds: _firstRounds, ...rest }) => rest),
  same_first_answer: {
    problems: paired.length,
    mean_verifier_score: {
      shipped: round(mean(paired.map(([a]) => a.verifierScore)), 3),
      shared_prefix: round(mean(paired.map(([, b]) => b.verifierScore)), 3),
    },
    mean_absolute_difference: round(
      mean(paired.map(([a, b]) => Math.abs(a.verifierScore - b.verifierScore))),
      3,
    ),
  },
  ratio: { seconds_shared_over_shipped: round(shared.seconds_per_problem / shipped.seconds_per_problem, 3) },
};
fs.writeFileSync(outPath, JSON.stringify(out, null, 1) + '\n');
console.error(
  `shipped ${shipped.seconds_per_problem} s/problem, shared-prefix ${shared.seconds_per_problem} s/problem (×${out.ratio.seconds_shared_over_shipped}); wrote ${outPath}`,
);
