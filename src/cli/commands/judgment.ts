import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, openModel, parseWithModel } from '../modelOptions';
import { checkPromptsDir } from '../promptsDir';
import { TRAIN_STEPS_USAGE, trainSteps } from './judgmentSteps';
import { readMathProblems, requireDataFile } from '../../core/eval/datasets';
import { readJournal, type JournalHeader } from '../../core/eval/journal';
import type { ProveItemResult } from '../../core/eval/proveEval';
import { journalModels, type JudgmentMetrics } from '../../core/eval/proveJudgment';
import { textCandidates, trainLearnedJudgment, type TextCandidate } from '../../core/eval/learnedJudgment';
import { proofConfidence, type Confidence } from '../../core/judgment/confidence';
import { stableHash } from '../../core/judgment/split';
import { loadPrompt, renderPrompt } from '../../core/prove/prompts';

const USAGE = `stepwise judgment train JOURNAL.items.jsonl… --data MATH.jsonl --out SCORER.json [--result RESULT.json] [--save-calibrator FILE.json] [--prompts-dir DIR] ${MODEL_USAGE}`;

const OPTIONS = {
  data: { type: 'string' },
  out: { type: 'string' },
  result: { type: 'string' },
  'save-calibrator': { type: 'string' },
  'prompts-dir': { type: 'string' },
} as const;

/**
 * `stepwise judgment train`: fits the learned scorer from `stepwise eval prove --keep-texts`
 * journals of any MATH-format file (the problems are read from --data by id), and measures
 * P(correct) with and without it on the held-out side. The scoring passes are cached beside the
 * scorer (SCORER.json.confidence.jsonl), so an interrupted run resumes where it stopped.
 */
export const judgmentCommand: CliCommand = {
  name: 'judgment',
  summary: 'Train the learned scorer of P(correct), or the learned step head, and measure what it adds',
  usage: `${USAGE}\n       ${TRAIN_STEPS_USAGE}`,
  async run(argv) {
    const [action, ...rest] = argv;
    if (action === 'train-steps') return trainSteps(rest);
    if (action !== 'train')
      throw new UsageError(`say what to do: train or train-steps${action ? `, not "${action}"` : ''}.`);
    const { values, positionals } = parseWithModel(rest, OPTIONS);
    if (!positionals.length)
      throw new UsageError('give the eval journals (JOURNAL.items.jsonl) to train from.');
    if (!values.data)
      throw new UsageError('--data FILE is required: the MATH-format file the journals ran on.');
    if (!values.out) throw new UsageError('--out FILE.json is required: where the learned scorer goes.');
    requireDataFile(values.data, 'prove');
    if (values['prompts-dir']) checkPromptsDir(values['prompts-dir']);
    const journals = positionals.map(readProveJournal);
    const items = journals.flatMap((j) => j.items);
    const problems = new Map(readMathProblems(values.data).items.map((p) => [p.id, p.problem]));
    const missing = items.filter((it) => !problems.has(it.id));
    if (missing.length)
      throw new UsageError(
        `${missing.length} journal item(s) are not in ${values.data} (first: ${missing[0].id}).`,
      );
    const total = textCandidates(items).length;
    if (!total)
      throw new UsageError(
        'the journals keep no candidate texts: run `stepwise eval prove --keep-texts` first.',
      );
    const template = loadPrompt('generator', values['prompts-dir']);
    const model = await openModel(values);
    try {
      const cache = new ConfidenceCache(`${values.out}.confidence.jsonl`, model.info.name);
      let done = 0;
      const confidenceOf = async (c: TextCandidate): Promise<Confidence> => {
        const key = `${c.item.id}/${c.round}/${c.candidate}/${stableHash(c.proof)}`;
        let found = cache.get(key);
        if (!found) {
          // Scored as the answer to the prompt that asked for it: the generator's.
          const prompt = renderPrompt(template, { problem: problems.get(c.item.id)! });
          found = await proofConfidence(model, [{ role: 'user', content: prompt }], c.proof);
          cache.put(key, found);
        }
        if (++done % 10 === 0 || done === total) process.stderr.write(`scored ${done}/${total} candidates\n`);
        return found;
      };
      const command = `stepwise judgment ${argv.join(' ')}`;
      const result = await trainLearnedJudgment(items, confidenceOf, {
        model: model.info.name,
        fittedOn: journalModels(journals.map((j) => j.header)),
        source: { journals: positionals.map((p) => path.basename(p)), split: 'fit', command },
      });
      writeJson(values.out, result.scorer);
      process.stderr.write(`learned scorer: ${values.out} (fitted on the fit side only)\n`);
      const report = {
        schema: 'stepwise.learned-judgment',
        command,
        journals: positionals.map((p) => path.basename(p)),
        model: model.info.name,
        createdAt: new Date().toISOString(),
        helps: result.helps,
        scorer: { l2: result.scorer.l2, fit: result.scorer.fit, weights: result.scorer.weights },
        without: figures(result.without),
        with: figures(result.with),
      };
      if (values.result) writeJson(values.result, report);
      if (values['save-calibrator']) {
        const chosen = result.helps ? result.with.fitted : result.without.fitted;
        if (chosen) writeJson(values['save-calibrator'], chosen);
        process.stderr.write(
          chosen
            ? `calibrator: ${values['save-calibrator']} (${result.helps ? 'with' : 'without'} the learned signal)\n`
            : 'no calibrator saved: the fit side has too few right or wrong candidates.\n',
        );
      }
      process.stdout.write(summaryText(result.without, result.with, result.helps));
      return 0;
    } finally {
      await model.dispose();
    }
  },
};

function figures(m: JudgmentMetrics) {
  return {
    split: m.split,
    calibrator: m.calibrator,
    judged: m.judged,
    signals: m.signals,
    bestOfN: m.bestOfN,
  };
}

function summaryText(without: JudgmentMetrics, withSignal: JudgmentMetrics, helps: boolean): string {
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(2));
  const line = (name: string, s: JudgmentMetrics['signals']['pCorrect']) =>
    `${name.padEnd(28)} AUROC ${f(s.auroc)} [${f(s.interval?.low)}, ${f(s.interval?.high)}]  ECE ${f(s.ece)}  (n=${s.count})\n`;
  const h = withSignal.split.heldOut;
  return (
    `held-out: ${h.problems} problems, ${h.candidates} candidates, ${h.positives} right\n` +
    line('P(correct) without learned', without.signals.pCorrect) +
    line('P(correct) with learned', withSignal.signals.pCorrect) +
    Object.entries(withSignal.signals)
      .filter(([k, s]) => k !== 'pCorrect' && s.count > 0)
      .map(([k, s]) => line(k, s))
      .join('') +
    `the learned signal ${helps ? 'helps' : 'does not help'} on these held-out problems\n`
  );
}

/** A journal's header (its models) and finished problems, read once. */
function readProveJournal(file: string): { header: JournalHeader | null; items: ProveItemResult[] } {
  let journal;
  try {
    journal = readJournal<ProveItemResult>(file);
  } catch (e) {
    throw new UsageError(`cannot read the journal ${file}: ${(e as Error).message}`);
  }
  return {
    header: journal.existing,
    items: journal.entries.flatMap((e) => (e.result && Array.isArray(e.result.rounds) ? [e.result] : [])),
  };
}

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

/** Scoring passes already made, keyed by candidate and text, for this model only. */
class ConfidenceCache {
  private readonly entries = new Map<string, Confidence>();
  constructor(
    private readonly file: string,
    private readonly model: string,
  ) {
    if (!fs.existsSync(file)) return;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      try {
        const e = JSON.parse(line) as { model: string; key: string; confidence: Confidence };
        if (e.model === model) this.entries.set(e.key, e.confidence);
      } catch {
        // An unfinished last line: scored again.
      }
    }
  }
  get(key: string): Confidence | undefined {
    return this.entries.get(key);
  }
  put(key: string, confidence: Confidence): void {
    this.entries.set(key, confidence);
    fs.mkdirSync(path.dirname(path.resolve(this.file)), { recursive: true });
    fs.appendFileSync(this.file, JSON.stringify({ model: this.model, key, confidence }) + '\n');
  }
}
