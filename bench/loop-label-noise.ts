/**
 * Where a finished `stepwise loop` run's completion labels came from, and how each step scorer
 * fares on the held-out labels of problems some sample solved against those of problems none
 * solved. On an unsolved problem every probe misses the answer whatever the step, so its labels
 * measure the generator more than the step; this split shows what a PRM learned from them.
 *
 *   node out/bench/loop-label-noise.js [--run bench/runs/loop-prm-cpu] [--out bench/results/loop-prm-cpu-label-noise.json]
 *
 * Reads only the run's journals (samples, labels, and the `eval prm` items of the PRM and the
 * verifier), so it needs no model and takes a second.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { auroc, aurocInterval, type ScoredOutcome } from '../src/core/math/stats';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const run = path.resolve(arg('run', 'bench/runs/loop-prm-cpu'));
const out = path.resolve(arg('out', 'bench/results/loop-prm-cpu-label-noise.json'));

interface Item<R> {
  type: string;
  id: string;
  result: R;
}
function journalItems<R>(name: string): Item<R>[] {
  const file = path.join(run, name);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: is ${run} a finished loop run?`);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Item<R>)
    .filter((e) => e.type === 'item');
}

type Samples = { solutionId: string; correct: boolean }[];
/** Solution id → whether any sample of its problem reached the reference answer. */
function problemSolved(set: 'train' | 'held-out'): Map<string, boolean> {
  const solved = new Map<string, boolean>();
  for (const item of journalItems<Samples>(`sample-${set}.jsonl`)) {
    const any = item.result.some((s) => s.correct);
    for (const s of item.result) solved.set(s.solutionId, any);
  }
  return solved;
}

interface LabelSummary {
  solutionId: string;
  steps: number;
  labelled: number;
  negative: number;
  probes: number;
}
const trainSolved = problemSolved('train');
const composition = { solved: {} as Record<string, number>, unsolved: {} as Record<string, number> };
for (const { result: r } of journalItems<LabelSummary>('label-train.jsonl')) {
  const kind =
    r.negative === 0
      ? 'right (every step positive, no probe)'
      : r.labelled === 1 && r.steps > 1
        ? 'only "the first step already fails"'
        : 'first error found later by bisection';
  const group = trainSolved.get(r.solutionId) ? composition.solved : composition.unsolved;
  group[kind] = (group[kind] ?? 0) + 1;
}

const heldOutSolved = problemSolved('held-out');
type StepScores = { id: string; ratings: number[]; scores: number[] };
function scorer(file: string) {
  const groups: Record<'all' | 'solved' | 'unsolved', ScoredOutcome[]> = {
    all: [],
    solved: [],
    unsolved: [],
  };
  for (const { result: r } of journalItems<StepScores>(file))
    r.ratings.forEach((rating, i) => {
      if (rating === 0 || !Number.isFinite(r.scores[i])) return;
      const point = { score: r.scores[i], correct: rating > 0 };
      groups.all.push(point);
      groups[heldOutSolved.get(r.id) ? 'solved' : 'unsolved'].push(point);
    });
  return Object.fromEntries(
    Object.entries(groups).map(([k, points]) => [
      k,
      {
        steps: points.length,
        positives: points.filter((p) => p.correct).length,
        auroc: auroc(points),
        interval: aurocInterval(points),
      },
    ]),
  );
}

const result = {
  benchmark:
    "issue 18: the CPU loop run split by whether any of a problem's samples solved it; training label composition and held-out step AUROC per group",
  command: `node out/bench/loop-label-noise.js --run ${path.relative(process.cwd(), run)}`,
  run: path.relative(process.cwd(), run),
  trainingLabels: composition,
  heldOutStepAuroc: {
    trainedPrm: scorer('eval-prm.items.jsonl'),
    verifier: scorer('eval-prm-verifier.items.jsonl'),
  },
};
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
