/**
 * Held-out step labels for `stepwise eval prm` when no human labels are at hand: MATH-500
 * reference solutions, split into steps as Stepwise splits them, each written twice in PRM800K
 * format — as is (every step +1: the reference is correct) and with one number of one step
 * changed (that step −1, the labeller stopping there). The changed step is picked by a seeded
 * generator among steps with a number in their mathematics, so the file is the same every time.
 *
 *   node out/bench/eval-prm-labels.js [--data MATH-500.jsonl] [--from 400] [--count 100] [--out FILE]
 *   (default FILE: $TMPDIR/stepwise-eval/math500-injected-errors.prm800k.jsonl)
 *
 * These labels test whether a scorer notices a wrong number in an otherwise sound solution; they
 * are no substitute for people's labels on model-written solutions, and the report says which.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readJsonl } from '../src/core/eval/datasets';
import { mulberry32 } from '../src/core/math/stats';
import { findPackageRoot } from '../src/core/resources';
import { splitSteps } from '../src/core/steps/split';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const data = arg('data', path.join(findPackageRoot(), '..', 'shared', 'data', 'MATH-500.jsonl'));
const from = Number(arg('from', '400'));
const count = Number(arg('count', '100'));
const out = arg('out', path.join(os.tmpdir(), 'stepwise-eval', 'math500-injected-errors.prm800k.jsonl'));

/** One number inside $…$ of a step, changed by 1 to 3; null when the step has none. */
function corrupt(step: string, random: () => number): string | null {
  const spans = [...step.matchAll(/\$[^$]+\$/g)];
  const numbers = spans.flatMap((m) =>
    [...m[0].matchAll(/\d+(?:\.\d+)?/g)].map((n) => ({ at: (m.index ?? 0) + (n.index ?? 0), text: n[0] })),
  );
  if (!numbers.length) return null;
  const target = numbers[Math.floor(random() * numbers.length)];
  const value = Number(target.text);
  const changed = String(
    target.text.includes('.')
      ? +(value + 1).toFixed(6)
      : value + (random() < 0.5 ? 1 : -1) * (1 + Math.floor(random() * 3)),
  );
  if (changed === target.text) return null;
  return step.slice(0, target.at) + changed + step.slice(target.at + target.text.length);
}

function line(problem: string, steps: { text: string; rating: number }[], answer: string): string {
  return JSON.stringify({
    labeler: 'injected-error',
    question: { problem, ground_truth_answer: answer },
    label: {
      steps: steps.map((s) => ({
        completions: [{ text: s.text, rating: s.rating, flagged: false }],
        chosen_completion: 0,
      })),
      finish_reason: steps.some((s) => s.rating === -1) ? 'found_error' : 'solution',
    },
  });
}

const random = mulberry32(2024);
const lines: string[] = [];
let written = 0;
for (const { value } of readJsonl(data).rows.slice(from)) {
  if (written >= count) break;
  const p = value as { problem?: string; answer?: string; solution?: string };
  const text = p.solution ?? '';
  if (!p.problem || !p.answer || !text || text.includes('[asy]')) continue;
  const steps = splitSteps(text).map((s) => s.text);
  if (steps.length < 2) continue;
  const candidates = steps
    .map((s, i) => ({ i, changed: corrupt(s, random) }))
    .filter((c) => c.changed !== null);
  if (!candidates.length) continue;
  const pick = candidates[Math.floor(random() * candidates.length)];
  lines.push(
    line(
      p.problem,
      steps.map((s) => ({ text: s, rating: 1 })),
      p.answer,
    ),
  );
  lines.push(
    line(
      p.problem,
      [...steps.slice(0, pick.i).map((s) => ({ text: s, rating: 1 })), { text: pick.changed!, rating: -1 }],
      p.answer,
    ),
  );
  written++;
}
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, lines.join('\n') + '\n');
console.log(
  `wrote ${lines.length} labelled solutions (${written} problems, each correct and with one injected error) to ${out}`,
);
