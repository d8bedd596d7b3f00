import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../command';
import { MODEL_USAGE, openModel, parseWithModel } from '../modelOptions';
import { checkPromptsDir } from '../promptsDir';
import { DatasetError } from '../../core/eval/datasets';
import { trainLearnedSteps, type LearnedStepsResult } from '../../core/eval/learnedSteps';
import { readStepLabels, type LabelledSteps } from '../../core/eval/prmEval';
import { solutionTokens } from '../../core/judgment/learnedStepScorer';
import { stepFeatures, joinSteps } from '../../core/judgment/stepFeatures';
import { TokenJournal } from '../../core/judgment/tokenJournal';
import type { ChatMessage, ModelBackend } from '../../core/model/types';
import { loadPrompt, renderPrompt } from '../../core/prove/prompts';

export const TRAIN_STEPS_USAGE = `stepwise judgment train-steps --labels FILE --out HEAD.json [--result RESULT.json] [--journal TOKENS.jsonl] [--limit N] [--threshold-by processbench-f1|first-error] [--prompts-dir DIR] ${MODEL_USAGE}`;

const OPTIONS = {
  labels: { type: 'string' },
  out: { type: 'string' },
  result: { type: 'string' },
  journal: { type: 'string' },
  limit: { type: 'string' },
  'threshold-by': { type: 'string' },
  'prompts-dir': { type: 'string' },
} as const;

/**
 * `stepwise judgment train-steps`: fits the learned step head from a label file `stepwise eval prm`
 * reads (Stepwise label export or PRM800K), on the fit side of its problems, and reports it on the
 * held-out side. Each solution's teacher-forced pass is kept in a token journal (HEAD.json.tokens.jsonl
 * unless --journal says), so an interrupted run resumes and a refit runs no model at all.
 */
export async function trainSteps(argv: string[]): Promise<number> {
  const { values } = parseWithModel(argv, OPTIONS);
  if (!values.labels) throw new UsageError('--labels FILE is required: the step labels to learn from.');
  if (!values.out) throw new UsageError('--out FILE.json is required: where the step head goes.');
  if (values['prompts-dir']) checkPromptsDir(values['prompts-dir']);
  const thresholdBy = values['threshold-by'] ?? 'processbench-f1';
  if (thresholdBy !== 'processbench-f1' && thresholdBy !== 'first-error')
    throw new UsageError(
      `--threshold-by is processbench-f1 (the default) or first-error, not "${thresholdBy}".`,
    );
  const limit = values.limit === undefined ? Infinity : Number(values.limit);
  if (!(limit === Infinity || (Number.isInteger(limit) && limit > 0)))
    throw new UsageError(`--limit must be a whole number of solutions, not "${values.limit}".`);
  let solutions: LabelledSteps[];
  try {
    solutions = readStepLabels(values.labels).solutions.slice(0, limit);
  } catch (e) {
    if (e instanceof DatasetError) throw new UsageError(e.message);
    throw e;
  }
  const template = loadPrompt('generator', values['prompts-dir']);
  // Scored as the answer to the prompt that asks the generator for a solution.
  const promptOf = (problem: string): ChatMessage[] => [
    { role: 'user', content: renderPrompt(template, { problem }) },
  ];
  const journalFile = values.journal ?? `${values.out}.tokens.jsonl`;
  const everything = new TokenJournal(journalFile);
  const allKept = solutions.every((s) =>
    everything.get(
      TokenJournal.keyOf(JSON.stringify(promptOf(s.problem)), joinSteps(s.steps.map((x) => x.text))),
    ),
  );
  let model: ModelBackend | undefined;
  let modelName: string;
  if (allKept && everything.models.size === 1) modelName = [...everything.models][0];
  else {
    model = await openModel(values);
    modelName = model.info.name;
  }
  try {
    const journal = new TokenJournal(journalFile, modelName);
    const rows: { solution: LabelledSteps; features: ReturnType<typeof stepFeatures> }[] = [];
    const started = Date.now();
    for (const solution of solutions) {
      const steps = solution.steps.map((s) => s.text);
      const tokens = await solutionTokens(model, promptOf(solution.problem), steps, journal);
      rows.push({ solution, features: stepFeatures(tokens, steps) });
      if (rows.length % 10 === 0 || rows.length === solutions.length)
        process.stderr.write(
          `scored ${rows.length}/${solutions.length} solutions (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
        );
    }
    const command = `stepwise judgment train-steps ${argv.join(' ')}`;
    let result: LearnedStepsResult;
    try {
      result = trainLearnedSteps(rows, {
        model: modelName,
        source: { labels: path.basename(values.labels), split: 'fit', command },
        thresholdBy,
      });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    writeJson(values.out, result.head);
    process.stderr.write(`step head: ${values.out} (fitted on the fit side only)\n`);
    if (values.result)
      writeJson(values.result, {
        schema: 'stepwise.learned-steps',
        command,
        labels: path.basename(values.labels),
        model: modelName,
        createdAt: new Date().toISOString(),
        ...result,
      });
    process.stdout.write(summaryText(result));
    return 0;
  } finally {
    await model?.dispose();
  }
}

function summaryText(r: LearnedStepsResult): string {
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(2));
  const h = r.split.heldOut;
  const fe = r.heldOut.firstError.accuracy;
  const roc = r.heldOut.stepRoc;
  return (
    `held-out: ${h.problems} problems, ${h.solutions} solutions, ${h.steps} steps (${h.wrongSteps} wrong)\n` +
    `step head [${r.head.features.join(', ')}]  step AUROC ${f(roc.auroc)} [${f(roc.interval?.low)}, ${f(roc.interval?.high)}]` +
    `  first-error ${f(fe.value)} [${f(fe.low)}, ${f(fe.high)}]  ProcessBench F1 ${f(r.heldOut.firstError.f1)} (threshold ${r.head.threshold.toFixed(3)}, chosen by ${r.head.thresholdBy} on the fit side)\n` +
    Object.entries(r.thresholdRules)
      .map(
        ([rule, t]) =>
          `  threshold by ${rule.padEnd(15)} ${t.threshold.toFixed(3)}: held-out first-error ${f(t.heldOut.accuracy.value)}, F1 ${f(t.heldOut.f1)} (fit side out of fold: ${f(t.fit.firstError)}, F1 ${f(t.fit.f1)})\n`,
      )
      .join('') +
    Object.entries(r.featureAlone)
      .map(
        ([name, a]) =>
          `  ${name.padEnd(18)} alone: step AUROC ${f(a.stepRoc.auroc)} [${f(a.stepRoc.interval?.low)}, ${f(a.stepRoc.interval?.high)}]\n`,
      )
      .join('')
  );
}

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}
