import * as path from 'node:path';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, openModel, parseWithModel } from '../modelOptions';
import { checkProof, proofToCheck } from '../../core/prove/check';
import type { ProveRun } from '../../core/prove/runSchema';
import { saveRun } from '../../core/prove/runStore';
import { runsDir } from '../../core/runs/folder';
import { stageName } from '../../core/prove/progress';
import { OnnxPrmScorer } from '../../core/model/onnx/prmScorer';
import { readInputFile } from './prove';
import { wholeFlag } from '../flags';
import { judgeFlagOptions } from '../proveFlags';
import { calibratorText, judgmentText } from '../../core/judgment/judge';
import { readCalibratorFlag } from '../calibratorFlag';
import { learnedStepScorer, readStepHead } from '../stepScorerFlag';
import { stepScorerText } from '../../core/judgment/verdictText';

const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(2));

/** What a person reads first: the grade, the weakest steps and the issues the verifier named. */
export function checkSummary(run: ProveRun, file: string): string {
  const c = run.iterations[0]?.candidates[0];
  const lines = [`status: ${run.status}, ${(run.totalMs / 1000).toFixed(1)} s`];
  if (run.status === 'cancelled')
    lines.push('cancelled: what was finished is saved; the run is left out of calibration and training data');
  if (run.error)
    lines.push(`error: ${run.error.message}${run.error.hint ? `\nhint: ${run.error.hint}` : ''}`);
  if (c) {
    lines.push(
      `P(correct): ${judgmentText(c.judgment)}`,
      ...(c.judgment ? [`  ${calibratorText(c.judgment)}`] : []),
      `verifier score: ${fmt(c.verifier?.score)} (0 wrong, 0.5 minor gaps, 1 complete)`,
      `meta-verifier (are the issues below real?): ${fmt(c.meta?.score)}`,
    );
    if (c.answerCheck)
      lines.push(
        `final answer: ${c.answerCheck.answer ?? '(none boxed)'} ${c.answerCheck.matches ? '=' : '≠'} ${c.answerCheck.reference}`,
      );
    const steps = c.stepScores?.steps ?? [];
    if (steps.length) {
      lines.push(`${stepScorerText(c.stepScores!.scorer)}:`);
      for (const s of steps)
        lines.push(`  ${s.score.toFixed(2)}  step ${s.index + 1}: ${s.text.replace(/\s+/g, ' ')}`);
    }
    const analysis = c.verifier?.passes[0]?.raw.trim();
    if (analysis) lines.push('', "The verifier's evaluation:", analysis);
  }
  lines.push('', `saved: ${file}`);
  return lines.join('\n') + '\n';
}

export const checkCommand: CliCommand = {
  name: 'check',
  summary:
    'Check a proof you wrote (## Solution): step scores, the verifier’s grade and issues, no generation',
  usage: `stepwise check FILE [--json] [--verifier-passes K] [--no-meta] [--no-step-scores] [--max-tokens N] [--save-dir DIR] [--prm-dir DIR | --step-scorer HEAD.json] [--calibrator FILE.json] ${MODEL_USAGE}`,
  async run(argv) {
    const { values, positionals } = parseWithModel(argv, {
      json: { type: 'boolean' },
      'verifier-passes': { type: 'string' },
      'no-meta': { type: 'boolean' },
      'no-step-scores': { type: 'boolean' },
      'max-tokens': { type: 'string' },
      'save-dir': { type: 'string' },
      'prm-dir': { type: 'string' },
      'step-scorer': { type: 'string' },
      calibrator: { type: 'string' },
    });
    if (positionals.length !== 1)
      throw new UsageError('give exactly one FILE: a proof document with "## Problem" and "## Solution".');
    const file = positionals[0];
    const found = proofToCheck(readInputFile(file));
    if ('error' in found) throw new UsageError(`${file}: ${found.error}`);
    // --max-tokens bounds the verifier here: nothing else is generated.
    const options = {
      ...judgeFlagOptions(values, !!values.endpoint && !values['prm-dir']),
      verifierMaxTokens: wholeFlag(values['max-tokens'], 'max-tokens', 16),
    };
    const saveDir = path.resolve(values['save-dir'] ?? runsDir(process.cwd()));
    const calibrator = readCalibratorFlag(values.calibrator);
    const head = readStepHead(values['step-scorer']);
    if (head && values['prm-dir'])
      throw new UsageError('give --prm-dir or --step-scorer, not both: the steps are scored by one of them.');
    const model = await openModel(values);
    let prm: OnnxPrmScorer | undefined;
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    try {
      prm = values['prm-dir'] ? await OnnxPrmScorer.load({ modelDir: values['prm-dir'] }) : undefined;
      const run = await checkProof(
        {
          ...found,
          file: path.resolve(file),
          options,
          signal: controller.signal,
          onEvent: (e) => {
            if (e.type === 'phase') process.stderr.write(`${stageName(e.phase)}\n`);
          },
        },
        // The head reads the model's own surprise at the person's steps (the same model judges here).
        { verifier: model, stepScorer: prm ?? (head && learnedStepScorer(model, head)), calibrator },
      );
      const saved = await saveRun(run, saveDir);
      process.stdout.write(values.json ? JSON.stringify(run, null, 2) + '\n' : checkSummary(run, saved));
      if (values.json) process.stderr.write(`saved: ${saved}\n`);
      return run.status === 'completed' ? 0 : run.status === 'cancelled' ? 130 : 1;
    } finally {
      process.removeListener('SIGINT', onSigint);
      await model.dispose();
      await prm?.dispose();
    }
  },
};
