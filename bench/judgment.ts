/**
 * Judging figures from finished `stepwise eval prove` journals, without running the model again:
 * per-signal AUROC / ECE and P(correct) on the held-out side of the stable split, best-of-N by
 * P(correct) against majority vote and the self-score pick. Optionally saves the calibrator fitted
 * on the fit side (how prompts/judgment/calibrator.json is made).
 *
 *   node out/bench/judgment.js JOURNAL.items.jsonl [--calibrator FILE] [--save-calibrator FILE]
 *     [--same-problems-as OTHER.items.jsonl] [--hash-split] [--paired-with OTHER.items.jsonl] --out RESULT.json
 *
 * --same-problems-as keeps only the problems another journal also finished, so two models' runs
 * are compared on the same problems (paired), whatever their lengths. --hash-split judges a given
 * calibrator on the hash split's held-out side only: the problems a calibrator fitted on these
 * journals is judged on, so a shipped calibrator and a newly fitted one compare on the same ones.
 * --paired-with compares each signal's AUROC with its AUROC in another journal on every problem
 * both finished (another verifier on the same problems), with an interval paired by problem
 * (core/eval/pairedSignals.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readJournal } from '../src/core/eval/journal';
import { journalModels, summarizeJudgment } from '../src/core/eval/proveJudgment';
import { pairedSignalDifferences } from '../src/core/eval/pairedSignals';
import type { ProveItemResult } from '../src/core/eval/proveEval';
import { loadCalibrator } from '../src/core/judgment/judge';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string' },
    calibrator: { type: 'string' },
    'save-calibrator': { type: 'string' },
    'same-problems-as': { type: 'string' },
    'hash-split': { type: 'boolean' },
    'paired-with': { type: 'string' },
  },
});
if (!positionals.length || !values.out) {
  process.stderr.write(
    'usage: node out/bench/judgment.js JOURNAL.items.jsonl… [--calibrator FILE] [--save-calibrator FILE] [--same-problems-as JOURNAL] [--hash-split] [--paired-with JOURNAL] --out RESULT.json\n',
  );
  process.exit(2);
}
/** The finished problems of a journal, read by the eval's own reader (a torn last line is skipped). */
const finishedItems = (journal: ReturnType<typeof readJournal<ProveItemResult>>): ProveItemResult[] =>
  journal.entries.flatMap((e) => (e.result ? [e.result] : []));
const journals = positionals.map((p) => readJournal<ProveItemResult>(p));
let items = journals.flatMap(finishedItems);
if (values['same-problems-as']) {
  const other = new Set(finishedItems(readJournal(values['same-problems-as'])).map((i) => i.id));
  items = items.filter((i) => other.has(i.id));
}
if (!items.length) {
  process.stderr.write('judgment: no finished problems to judge (none shared with --same-problems-as?)\n');
  process.exit(1);
}
const given = values.calibrator
  ? { calibrator: loadCalibrator(values.calibrator), file: values.calibrator }
  : undefined;
// The models the journals ran with: a calibrator fitted here names them, so the product uses it
// for those models only; journals of mixed models give one that names none.
const models = journalModels(journals.map((j) => j.existing));
if (!models && values['save-calibrator'])
  process.stderr.write('judgment: the journals ran with different models; the saved calibrator names none\n');
const metrics = summarizeJudgment(items, given, models, { hashSplit: values['hash-split'] });
const paired = values['paired-with']
  ? {
      with: values['paired-with'],
      ...pairedSignalDifferences(items, finishedItems(readJournal(values['paired-with']))),
    }
  : undefined;
const command = `node out/bench/judgment.js ${process.argv.slice(2).join(' ')}`;
fs.writeFileSync(
  values.out,
  JSON.stringify(
    {
      command,
      journals: positionals,
      items: items.length,
      createdAt: new Date().toISOString(),
      metrics,
      ...(paired ? { paired } : {}),
    },
    null,
    2,
  ) + '\n',
);
if (values['save-calibrator'] && metrics.fitted) {
  fs.mkdirSync(path.dirname(values['save-calibrator']), { recursive: true });
  const source = { ...metrics.fitted.source, journals: positionals.map((p) => path.basename(p)), command };
  fs.writeFileSync(values['save-calibrator'], JSON.stringify({ ...metrics.fitted, source }, null, 2) + '\n');
}
const s = metrics.signals;
const f = (x: number | null) => (x === null ? '—' : x.toFixed(3));
process.stdout.write(
  `${items.length} problems; held-out ${metrics.split.heldOut.problems} (${metrics.split.heldOut.candidates} candidates, ${metrics.split.heldOut.positives} right)\n` +
    Object.entries(s)
      .map(
        ([k, v]) =>
          `${k.padEnd(14)} n=${v.count} AUROC ${f(v.auroc)} [${f(v.interval?.low ?? null)}, ${f(v.interval?.high ?? null)}] ECE ${f(v.ece)}`,
      )
      .join('\n') +
    `\nECE of a perfectly calibrated P(correct) here: ${f(s.pCorrect.eceIfCalibrated?.mean ?? null)} (95 % ≤ ${f(s.pCorrect.eceIfCalibrated?.high ?? null)})` +
    `\nbest-of-${metrics.bestOfN.candidates}: ${JSON.stringify(Object.fromEntries(Object.entries(metrics.bestOfN.picks).map(([k, v]) => [k, v.value])))} pass@N ${f(metrics.bestOfN.passAtN.value)}\n` +
    `P(correct) − majority ${JSON.stringify(metrics.bestOfN.differences.majority)}\n`,
);
if (paired) {
  const d = (x: number | null) => (x === null ? '—' : (x >= 0 ? '+' : '') + x.toFixed(3));
  process.stdout.write(
    `paired with ${paired.with}: ${paired.problems} problems; candidates ${paired.candidates.a} here (${paired.positives.a} right), ${paired.candidates.b} there (${paired.positives.b} right)\n` +
      Object.entries(paired.signals)
        .filter(([, v]) => v.candidates.a > 0 && v.candidates.b > 0)
        .map(
          ([k, v]) =>
            `${k.padEnd(14)} AUROC ${f(v.a)} here, ${f(v.b)} there: ${d(v.difference)} [${d(v.interval?.low ?? null)}, ${d(v.interval?.high ?? null)}]`,
        )
        .join('\n') +
      '\n',
  );
}
