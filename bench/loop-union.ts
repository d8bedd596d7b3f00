/**
 * Summarises bench/loop-prm-cpu-union.sh: the PRM trained on both CPU loop runs' labels, measured
 * against the verifier on each run's held-out labels and by best-of-4 on the 100 held-out problems.
 * Reads bench/runs/loop-prm-cpu-union (and the first run's verifier journal); writes
 * bench/results/loop-prm-cpu-union.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LoopBestOfN } from '../src/core/loop/bestOfN';
import { loopVerdict } from '../src/core/loop/verdict';

const run = path.resolve('bench/runs/loop-prm-cpu-union');
const read = <T>(file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as T;
const report = read<{
  command: string;
  state: { train: { examples: number; metrics: Record<string, number> } };
}>(path.join(run, 'loop-report.json'));
const bestOfN = read<{ metrics: { bestOfN: LoopBestOfN } }>(path.join(run, 'best-of-n.json')).metrics.bestOfN;
const labelSets = {
  'solved-only run (59 solutions of 15 held-out problems some sample solved)': {
    prm: path.join(run, 'eval-prm.json'),
    verifier: path.join(run, 'eval-prm-verifier.json'),
  },
  'first run (60 solutions of the first 15 held-out problems, solved or not)': {
    prm: path.join(run, 'eval-prm-first.json'),
    verifier: path.resolve('bench/runs/loop-prm-cpu/eval-prm-verifier.json'),
  },
};
const heldOut = Object.fromEntries(
  Object.entries(labelSets).map(([name, files]) => {
    const verdict = loopVerdict(files.prm, files.verifier, bestOfN);
    const stepAuroc = (file: string) =>
      read<{ metrics: { stepRoc: { count: number; positives: number; auroc: number; interval: unknown } } }>(
        file,
      ).metrics.stepRoc;
    return [name, { prm: stepAuroc(files.prm), verifier: stepAuroc(files.verifier), verdict }];
  }),
);
const record = {
  benchmark:
    "issue 18: one PRM trained on both CPU loop runs' automatic labels (same recipe), step AUROC against the verifier on each run's held-out labels, best-of-4 on the 100 held-out problems",
  command: 'bash bench/loop-prm-cpu-union.sh',
  loopCommand: report.command,
  trainingSolutions: report.state.train.examples,
  trainerValidation: report.state.train.metrics,
  heldOutLabels: heldOut,
  bestOfN: { selections: bestOfN.selections, differences: bestOfN.differences },
};
const out = path.resolve('bench/results/loop-prm-cpu-union.json');
fs.writeFileSync(out, JSON.stringify(record, null, 2) + '\n');
for (const [name, r] of Object.entries(heldOut))
  console.log(
    `${name}: PRM ${r.prm.auroc.toFixed(3)}, verifier ${r.verifier.auroc.toFixed(3)}. ${r.verdict.summary}`,
  );
console.log(`Wrote ${path.relative(process.cwd(), out)}.`);
