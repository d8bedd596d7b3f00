import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { parseCommandLine, UsageError } from '../command';
import { MODEL_USAGE, openModel, openVerifierModel, parseWithModel } from '../modelOptions';
import { readLearnedScorer, requireScorerModel } from '../learnedScorerFlag';
import { learnedStepScorer, readStepHead } from '../stepScorerFlag';
import type { StepScorer } from '../../core/model/stepScorer';
import { checkPromptsDir } from '../promptsDir';
import { problemFromDocument } from '../../core/steps/document';
import { parseProofOutput } from '../../core/prove/parse';
import { proveAndVerify, resolveProveOptions } from '../../core/prove/prove';
import type { ProveEvent } from '../../core/prove/events';
import type { ProveRun, ScoreDistribution } from '../../core/prove/runSchema';
import type { ModelBackend } from '../../core/model/types';
import { loadRuns, saveRun } from '../../core/prove/runStore';
import { runsDir } from '../../core/runs/folder';
import { calibrationReport, type ScoreCalibration } from '../../core/prove/calibration';
import { OnnxPrmScorer } from '../../core/model/onnx/prmScorer';
import { proveFlagOptions } from '../proveFlags';
import { calibratorText, judgmentText } from '../../core/judgment/judge';
import { readCalibratorFlag } from '../calibratorFlag';

const PROVE_USAGE =
  'stepwise prove FILE [--json] [--iterations N] [--candidates N] [--rerank-by p-correct|prm|verifier|self] [--stop-probability P] [--calibrator FILE.json] [--learned-scorer FILE.json] [--verifier-passes K] ' +
  '[--rubric unit|olympiad] [--no-meta] [--no-step-scores] [--aggregate product|min] [--max-tokens N] [--temperature T] ' +
  `[--seed S] [--free] [--self-eval-max-tokens N] [--answer TEXT] [--prompts-dir DIR] [--save-dir DIR] [--verifier-model-dir DIR] [--prm-dir DIR | --step-scorer HEAD.json] ${MODEL_USAGE}`;

export function readInputFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

/** Progress on stderr, so that stdout carries only the result (the run JSON with --json). */
function progressPrinter(streamTokens: boolean): (e: ProveEvent) => void {
  let streaming = false;
  return (e) => {
    if (e.type === 'phase') {
      if (streaming) process.stderr.write('\n');
      streaming = false;
      const who = e.candidate === null ? '' : ` candidate ${e.candidate + 1}`;
      process.stderr.write(`[round ${e.iteration + 1}] ${e.phase}${who}\n`);
    } else if (e.type === 'token' && e.phase === 'generate' && e.sequence === 0 && streamTokens) {
      streaming = true;
      process.stderr.write(e.text);
    }
  };
}

function summary(run: ProveRun, file: string): string {
  const lines = [
    `status: ${run.status} (${run.stopReason}), ${run.iterations.length} round(s), ${(run.totalMs / 1000).toFixed(1)} s`,
  ];
  if (run.error)
    lines.push(`error: ${run.error.message}${run.error.hint ? `\nhint: ${run.error.hint}` : ''}`);
  const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(2));
  const mode = (role: string, m: ProveRun['generation']['generator']) =>
    `${role}: ${m.mode === 'constrained' ? `constrained (${m.planMode})` : `free — ${m.fallbackReason}`}`;
  lines.push(`${mode('generator', run.generation.generator)}; ${mode('verifier', run.generation.verifier)}`);
  // One calibrator judges the whole run: say once which, and whether it was fitted on these models.
  const judged = run.iterations.flatMap((it) => it.candidates).find((c) => c.judgment)?.judgment;
  if (judged) lines.push(calibratorText(judged));
  // The probabilities of a constrained score, e.g. "0.75 [0 10%, 0.5 30%, 1 60%]".
  const dist = (d: ScoreDistribution | null | undefined) =>
    d && d.source === 'choice'
      ? ` [${d.options.map((o) => `${o.option} ${(o.probability * 100).toFixed(0)}%`).join(', ')}]`
      : '';
  for (const it of run.iterations) {
    for (const rank of it.ranking) {
      const c = it.candidates[rank];
      const mark = rank === it.chosen ? '*' : ' ';
      const unreasoned = [...(c.verifier?.passes ?? []), ...(c.meta?.passes ?? [])].filter(
        (p) => p.withoutReasons,
      );
      lines.push(
        `${mark} round ${it.index + 1} candidate ${c.index + 1} (${c.constrained ? 'constrained' : 'free'}): ` +
          `self ${fmt(c.parsed.selfScore)}${dist(c.selfScoreDistribution)}, verifier ${fmt(c.verifier?.score)}${dist(c.verifier?.passes[0]?.distribution)}, ` +
          `meta ${fmt(c.meta?.score)}, steps ${fmt(c.stepScores?.solutionScore)}, R ${fmt(c.rewards.r)}, ${judgmentText(c.judgment ?? null)}` +
          (c.answerCheck
            ? `; answer ${c.answerCheck.answer ?? '(none)'} ${c.answerCheck.matches ? '=' : '≠'} reference ${c.answerCheck.reference}`
            : '') +
          (unreasoned.length ? `; ${unreasoned.length} verdict(s) without reasons` : '') +
          (c.parsed.problems.length ? `; format: ${c.parsed.problems.join('; ')}` : ''),
      );
    }
  }
  const final = run.final && run.iterations[run.final.iteration]?.candidates[run.final.candidate];
  if (final && run.final) {
    const where = `round ${run.final.iteration + 1}, candidate ${run.final.candidate + 1}`;
    lines.push(
      '',
      `Final proof (${where}):`,
      final.parsed.proof || '(empty)',
      '',
      'Its self-evaluation:',
      final.parsed.selfAnalysis || '(none)',
    );
  }
  lines.push('', `saved: ${file}`);
  return lines.join('\n') + '\n';
}

export const proveCommand: CliCommand = {
  name: 'prove',
  summary: 'Prove a problem with self-evaluation, verify, refine, and save the run',
  usage: PROVE_USAGE,
  async run(argv) {
    const { values, positionals } = parseWithModel(argv, {
      json: { type: 'boolean' },
      iterations: { type: 'string' },
      candidates: { type: 'string' },
      'rerank-by': { type: 'string' },
      'verifier-passes': { type: 'string' },
      rubric: { type: 'string' },
      'no-meta': { type: 'boolean' },
      'no-step-scores': { type: 'boolean' },
      aggregate: { type: 'string' },
      'max-tokens': { type: 'string' },
      temperature: { type: 'string' },
      seed: { type: 'string' },
      'prompts-dir': { type: 'string' },
      'save-dir': { type: 'string' },
      'verifier-model-dir': { type: 'string' },
      'prm-dir': { type: 'string' },
      free: { type: 'boolean' },
      'self-eval-max-tokens': { type: 'string' },
      answer: { type: 'string' },
      'stop-probability': { type: 'string' },
      calibrator: { type: 'string' },
      'learned-scorer': { type: 'string' },
      'step-scorer': { type: 'string' },
    });
    if (positionals.length !== 1)
      throw new UsageError(
        'give exactly one FILE: a proof document with a "## Problem" section, or a plain-text problem.',
      );
    const file = positionals[0];
    const problem = problemFromDocument(readInputFile(file));
    if (problem.text === '')
      throw new UsageError(`${file} holds no problem: ${problem.problems.join('; ') || 'it is empty'}.`);
    const temperature = values.temperature === undefined ? undefined : Number(values.temperature);
    if (temperature !== undefined && !(temperature >= 0 && temperature <= 2)) {
      throw new UsageError(`--temperature must be a number from 0 to 2, not "${values.temperature}".`);
    }
    // Step scores are log-probabilities of the verifier's judgement over the model's chat template;
    // an endpoint gives neither, so without a local verifier or PRM the run goes on without them.
    const noStepScorer = !!values.endpoint && !values['verifier-model-dir'] && !values['prm-dir'];
    if (noStepScorer && values['rerank-by'] === 'prm')
      throw new UsageError(
        '--rerank-by prm needs step scores: with --endpoint, add --prm-dir DIR or --verifier-model-dir DIR.',
      );
    if (noStepScorer && !values['no-step-scores'])
      process.stderr.write(
        'note: no step scores with --endpoint alone (they need a local model); add --prm-dir DIR or --verifier-model-dir DIR for them.\n',
      );
    if (values['prompts-dir']) checkPromptsDir(values['prompts-dir']);
    const options = proveFlagOptions(values, { noStepScorer, temperature });
    try {
      resolveProveOptions(options); // refuse bad options before a model is loaded
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const saveDir = path.resolve(values['save-dir'] ?? runsDir(process.cwd()));
    const calibrator = readCalibratorFlag(values.calibrator);

    const learnedScorer = readLearnedScorer(values['learned-scorer']);
    const head = readStepHead(values['step-scorer']);
    if (head && values['prm-dir'])
      throw new UsageError('give --prm-dir or --step-scorer, not both: the steps are scored by one of them.');

    const model = await openModel(values);
    let headScorer: StepScorer | undefined;
    try {
      requireScorerModel(learnedScorer, model);
      // The head reads the generator's own surprise at each step: it must be this generator's head.
      headScorer = head && learnedStepScorer(model, head, values['prompts-dir']);
    } catch (err) {
      await model.dispose();
      throw err;
    }
    // A separate verifier folder is loaded with the generator's variant and device.
    let verifier: ModelBackend | undefined;
    let prm: OnnxPrmScorer | undefined;
    try {
      verifier = await openVerifierModel(values);
      // A trained process reward model scores the steps instead of the verifier's "+"/"-" odds.
      prm = values['prm-dir'] ? await OnnxPrmScorer.load({ modelDir: values['prm-dir'] }) : undefined;
    } catch (err) {
      await model.dispose();
      await verifier?.dispose();
      throw err;
    }
    const controller = new AbortController();
    // Ctrl+C cancels at the next token; the partial run is still saved and printed.
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    try {
      const run = await proveAndVerify(
        {
          problem: problem.text,
          referenceAnswer: values.answer,
          file: path.resolve(file),
          options,
          signal: controller.signal,
          onEvent: progressPrinter(!values.json && !!process.stderr.isTTY),
        },
        { generator: model, verifier, stepScorer: prm ?? headScorer, calibrator, learnedScorer },
      );
      const saved = await saveRun(run, saveDir);
      process.stdout.write(values.json ? JSON.stringify(run, null, 2) + '\n' : summary(run, saved));
      if (values.json) process.stderr.write(`saved: ${saved}\n`);
      if (run.status === 'failed')
        process.stderr.write(
          `stepwise prove: ${run.error?.message}\n${run.error?.hint ? `hint: ${run.error.hint}\n` : ''}`,
        );
      return run.status === 'completed' ? 0 : run.status === 'cancelled' ? 130 : 1;
    } finally {
      process.removeListener('SIGINT', onSigint);
      await model.dispose();
      await verifier?.dispose();
      await prm?.dispose();
    }
  },
};

export const parseProofCommand: CliCommand = {
  name: 'parse-proof',
  summary: 'Parse a generator output (## Solution / ## Self Evaluation) and report its format problems',
  usage: 'stepwise parse-proof FILE [--json]',
  async run(argv) {
    const parsedArgs = parseCommandLine(argv, { json: { type: 'boolean' } });
    const { values, positionals } = parsedArgs;
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE holding a generator output.');
    const parsed = parseProofOutput(readInputFile(positionals[0]));
    if (values.json) {
      process.stdout.write(JSON.stringify(parsed, null, 2) + '\n');
    } else {
      process.stdout.write(
        `self-score: ${parsed.selfScore ?? '—'}\nformat reward: ${parsed.formatReward}\n` +
          (parsed.problems.length
            ? `problems:\n${parsed.problems.map((p) => `  - ${p}`).join('\n')}\n`
            : 'problems: none\n'),
      );
    }
    return 0;
  },
};

export const calibrationCommand: CliCommand = {
  name: 'calibration',
  summary:
    'Calibration of self-scores and verifier scores (reliability, ECE, AUROC) over the saved prove runs',
  usage: 'stepwise calibration [--runs-dir DIR] [--model NAME] [--json]',
  async run(argv) {
    const parsedArgs = parseCommandLine(
      argv,
      { json: { type: 'boolean' }, 'runs-dir': { type: 'string' }, model: { type: 'string' } },
      false,
    );
    const { values } = parsedArgs;
    const dir = path.resolve(values['runs-dir'] ?? runsDir(process.cwd()));
    const loaded = await loadRuns(dir);
    for (const s of loaded.skipped) process.stderr.write(`skipped ${s.file}: ${s.error}\n`);
    const report = calibrationReport(
      loaded.runs.map((r) => r.run),
      { model: values.model ?? null },
    );
    if (values.model && !report.models.some((m) => m.name === values.model))
      throw new UsageError(
        `--model: no saved run of ${values.model} in ${dir}; its runs are of ${report.models.map((m) => m.name).join(', ') || 'no model yet'}.`,
      );
    if (values.json) {
      process.stdout.write(
        JSON.stringify({ runsDir: dir, runs: loaded.runs.length, ...report }, null, 2) + '\n',
      );
      return 0;
    }
    const fmt = (x: number | null) => (x === null ? '—' : x.toFixed(3));
    const line = (name: string, c: ScoreCalibration) =>
      `${name}: ${c.count} candidate(s), ECE ${fmt(c.ece)}, AUROC ${fmt(c.auroc)}, bias ${fmt(c.bias)}`;
    const bins = report.selfVsAnswer.bins
      .filter((b) => b.count > 0)
      .map(
        (b) =>
          `  self-score ${b.lower.toFixed(1)}–${b.upper.toFixed(1)}: ${String(b.count).padStart(4)}, mean ${fmt(b.meanConfidence)}, correct ${fmt(b.meanOutcome)}`,
      );
    process.stdout.write(
      [
        report.model
          ? `${report.models.find((m) => m.name === report.model)?.runs ?? 0} run(s) of ${report.model} in ${dir}: ${report.constrained} constrained and ${report.free} free candidate(s)`
          : `${loaded.runs.length} run(s) in ${dir}: ${report.constrained} constrained and ${report.free} free candidate(s)`,
        // Different models' scores are different scales: say when the figures pool them.
        ...(!report.model && report.models.length > 1
          ? [
              `these pool ${report.models.length} models (${report.models.map((m) => `${m.name}: ${m.runs}`).join(', ')}); --model NAME shows one`,
            ]
          : []),
        line('P(correct) vs answer correctness', report.pCorrectVsAnswer),
        line('self-score vs answer correctness', report.selfVsAnswer),
        line('verifier score vs answer correctness', report.verifierVsAnswer),
        line('self-score vs verifier score', report.selfVsVerifier),
        ...(bins.length
          ? ['reliability of the self-score (problems with a reference answer):', ...bins]
          : []),
      ].join('\n') + '\n',
    );
    return 0;
  },
};
