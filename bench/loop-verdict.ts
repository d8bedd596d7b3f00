/**
 * The loop's verdict (whether the trained PRM should replace the current step scorer) on finished
 * `stepwise loop` runs, read from their journals: the paired step AUROC of the PRM against the
 * verifier on the held-out labels, and the paired best-of-N differences.
 *
 *   node out/bench/loop-verdict.js [--out bench/results/loop-verdict.json] RUN_DIR...
 *
 * Needs no model; runs written before the verdict existed get one here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LoopBestOfN } from '../src/core/loop/bestOfN';
import { loopVerdict } from '../src/core/loop/verdict';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = path.resolve(outAt >= 0 ? args[outAt + 1] : 'bench/results/loop-verdict.json');
const runs = args.filter((_, i) => i !== outAt && i !== outAt + 1);
if (!runs.length) runs.push('bench/runs/loop-prm-cpu', 'bench/runs/loop-prm-cpu-solved');

const verdicts = runs.map((run) => {
  const bestOfNFile = path.join(run, 'best-of-n.json');
  if (!fs.existsSync(bestOfNFile))
    throw new Error(`${bestOfNFile} is missing: is ${run} a finished loop run?`);
  const bestOfN = (JSON.parse(fs.readFileSync(bestOfNFile, 'utf8')) as { metrics: { bestOfN: LoopBestOfN } })
    .metrics.bestOfN;
  const verdict = loopVerdict(
    path.join(run, 'eval-prm.json'),
    path.join(run, 'eval-prm-verifier.json'),
    bestOfN,
  );
  return { run, ...verdict };
});
const record = {
  benchmark:
    "issue 18: the loop's recommendation on the finished CPU runs: use the new PRM only when it beats the verifier in step AUROC on held-out labels and loses neither best-of-N comparison (self-score pick, single sample)",
  command: `node out/bench/loop-verdict.js ${process.argv.slice(2).join(' ')}`.trim(),
  verdicts,
};
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(record, null, 2) + '\n');
for (const v of verdicts) console.log(`${v.run}: ${v.summary}`);
