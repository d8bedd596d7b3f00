import * as path from 'node:path';
import * as fs from 'node:fs';
import type { Calibrator } from '../../core/judgment/calibrator';
import { loadCalibrator } from '../../core/judgment/judge';
import type { ProveMetrics } from '../../core/eval/proveSummary';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import {
  MODEL_USAGE,
  assertionGrammarOf,
  openModel,
  openVerifierModel,
  parseWithModel,
} from '../modelOptions';
import {
  defaultResultFile,
  outputPaths,
  type EvalKind,
  type EvalResult,
  type EvaluationOutcome,
} from '../../core/eval/evaluation';
import { progressLine, type EvalProgress } from '../../core/eval/runner';
import { evalProve, evalPrm, evalTests, type CommonRun } from '../../core/eval/suites';
import { loadPrompt } from '../../core/prove/prompts';
import { checkPromptsDir } from '../promptsDir';
import { readLearnedScorer, requireScorerModel } from '../learnedScorerFlag';
import { OnnxPrmScorer } from '../../core/model/onnx/prmScorer';
import { learnedStepScorer, readStepHead } from '../stepScorerFlag';
import type { StepScorer } from '../../core/model/stepScorer';
import { VerifierStepScorer } from '../../core/prove/stepScores';
import { findPackageRoot } from '../../core/resources';
import { requireDataFile } from '../../core/eval/datasets';
import type { ModelBackend } from '../../core/model/types';
import { evalSummaryText } from '../../core/eval/summaryText';
import { loadStageChain } from '../../core/tests/stages';
import { fractionFlag, wholeFlag } from '../flags';
import { SANDBOX_DEFAULTS } from '../../core/sandbox/limits';
import { settingDefault } from '../../core/settings/schema';
import { DEFAULT_EVIDENCE_SAMPLES } from '../../core/tests/evidence';
import { PROVE_DEFAULTS } from '../../core/prove/runSchema';

const COMMON =
  '[--out FILE.json] [--fresh] [--limit N] [--offset N] [--concurrency N] [--json] [--progress text|json]';
const USAGE = [
  `stepwise eval prove [--data MATH.jsonl] [--candidates N] [--iterations N] [--max-tokens N] [--temperature T] [--seed S] [--rerank-by verifier|prm|self] [--prm-dir DIR] [--verifier-model-dir DIR] [--prompts-dir DIR] [--no-step-scores] [--no-meta] [--free] [--calibrator FILE.json] [--save-calibrator FILE.json] [--keep-texts] [--learned-scorer FILE.json] ${COMMON} ${MODEL_USAGE}`,
  `       stepwise eval tests [--data HumanEval.jsonl.gz|mbpp.jsonl] [--mutants K] [--samples N] [--max-tokens N] [--seed S] [--stages STAGES.json] ${COMMON} ${MODEL_USAGE}`,
  `       stepwise eval prm --labels FILE [--prm-dir DIR | --step-scorer HEAD.json [--journal TOKENS.jsonl] | model options] [--threshold T] [--held-out] ${COMMON}`,
].join('\n');

const OPTIONS = {
  data: { type: 'string' },
  labels: { type: 'string' },
  out: { type: 'string' },
  fresh: { type: 'boolean' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  concurrency: { type: 'string' },
  json: { type: 'boolean' },
  progress: { type: 'string' },
  candidates: { type: 'string' },
  iterations: { type: 'string' },
  'max-tokens': { type: 'string' },
  samples: { type: 'string' },
  temperature: { type: 'string' },
  seed: { type: 'string' },
  'rerank-by': { type: 'string' },
  'prm-dir': { type: 'string' },
  'verifier-model-dir': { type: 'string' },
  'prompts-dir': { type: 'string' },
  'no-step-scores': { type: 'boolean' },
  free: { type: 'boolean' },
  'no-meta': { type: 'boolean' },
  mutants: { type: 'string' },
  stages: { type: 'string' },
  threshold: { type: 'string' },
  calibrator: { type: 'string' },
  'save-calibrator': { type: 'string' },
  'keep-texts': { type: 'boolean' },
  'learned-scorer': { type: 'string' },
  'step-scorer': { type: 'string' },
  'held-out': { type: 'boolean' },
  journal: { type: 'string' },
} as const;

/** The data files the evaluations read by default: the shared folder beside the checkout. */
function sharedData(file: string): string {
  return path.join(findPackageRoot(), '..', 'shared', 'data', file);
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export const evalCommand: CliCommand = {
  name: 'eval',
  summary:
    'Measure Prove (MATH), generated tests (HumanEval/MBPP) or a step scorer (labels): JSON results and an HTML report',
  usage: USAGE,
  async run(argv) {
    const [kind, ...rest] = argv;
    if (kind !== 'prove' && kind !== 'tests' && kind !== 'prm')
      throw new UsageError(`say what to evaluate: prove, tests or prm${kind ? `, not "${kind}"` : ''}.`);
    const { values, positionals } = parseWithModel(rest, OPTIONS);
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}".`);
    const progressMode = values.progress ?? 'text';
    if (progressMode !== 'text' && progressMode !== 'json')
      throw new UsageError('--progress must be text or json.');
    const emit = (event: Record<string, unknown>) => process.stderr.write(JSON.stringify(event) + '\n');

    const data =
      kind === 'prm'
        ? values.labels
        : (values.data ?? sharedData(kind === 'prove' ? 'MATH-500.jsonl' : 'HumanEval.jsonl.gz'));
    if (!data)
      throw new UsageError(
        '--labels FILE is required: held-out step labels (Stepwise labels JSONL or PRM800K).',
      );
    requireDataFile(data, kind);
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const common: CommonRun = {
      command: `stepwise eval ${argv.map(quote).join(' ')}`,
      out: outputPaths(values.out ?? defaultResultFile(process.cwd(), kind as EvalKind, data)),
      fresh: values.fresh,
      limit: values.limit === undefined ? undefined : wholeFlag(values.limit, 'limit', 1, 0),
      offset: wholeFlag(values.offset, 'offset', 0, 0),
      concurrency: wholeFlag(values.concurrency, 'concurrency', 1, 1),
      signal: controller.signal,
      onProgress: (p: EvalProgress) =>
        progressMode === 'json'
          ? emit({ type: 'progress', ...p })
          : process.stderr.write(progressLine(p) + '\n'),
      onNotice: (message) =>
        progressMode === 'json' ? emit({ type: 'notice', message }) : process.stderr.write(`${message}\n`),
    };

    const opened: { dispose(): Promise<void> }[] = [];
    try {
      let outcome: EvaluationOutcome<unknown>;
      if (kind === 'prove') {
        // As `stepwise prove`: step scores read the verifier's log-probabilities over the model's own
        // chat template, which an endpoint does not give reliably, so without a PRM they are left out
        // (said once) rather than failing every problem at its step-scoring phase.
        const noStepScorer = !!values.endpoint && !values['prm-dir'] && !values['verifier-model-dir'];
        if (noStepScorer && values['rerank-by'] === 'prm')
          throw new UsageError(
            '--rerank-by prm needs step scores: with --endpoint, add --prm-dir DIR or --verifier-model-dir DIR.',
          );
        if (noStepScorer && !values['no-step-scores'])
          common.onNotice?.(
            'note: no step scores with --endpoint alone (they need a local model); add --prm-dir DIR or --verifier-model-dir DIR for them.',
          );
        if (values['prompts-dir']) checkPromptsDir(values['prompts-dir']);
        // A calibrator file that cannot be used is refused before the model loads.
        const calibrator = values.calibrator ? readCalibrator(values.calibrator) : undefined;
        if (calibrator && values['save-calibrator'])
          throw new UsageError(
            '--save-calibrator saves the calibrator fitted here; it cannot go with --calibrator.',
          );
        const learnedScorer = readLearnedScorer(values['learned-scorer']);
        const prm = values['prm-dir'] ? await OnnxPrmScorer.load({ modelDir: values['prm-dir'] }) : undefined;
        if (prm) opened.push(prm);
        const model = await openModel(values);
        opened.push(model);
        requireScorerModel(learnedScorer, model);
        // A separate verifier (for instance a larger model judging a smaller one's candidates): the
        // journal names it, so the calibrator fitted on the run is fitted on this pair.
        const verifier = await openVerifierModel(values);
        if (verifier) opened.push(verifier);
        outcome = await evalProve({
          ...common,
          data,
          models: { generator: model, verifier, stepScorer: prm, learnedScorer },
          calibrator,
          keepTexts: values['keep-texts'],
          options: {
            // Best-of-N is what this evaluation measures, so it samples 4 candidates where Prove
            // samples PROVE_DEFAULTS.candidates; each result's settings record the count.
            candidates: wholeFlag(values.candidates, 'candidates', 1, 4),
            maxIterations: wholeFlag(
              values.iterations,
              'iterations',
              1,
              settingDefault('prove.maxIterations'),
            ),
            maxTokens: wholeFlag(
              values['max-tokens'],
              'max-tokens',
              16,
              settingDefault('model.maxOutputTokens'),
            ),
            temperature: fractionFlag(values.temperature, 'temperature', 2, PROVE_DEFAULTS.temperature),
            seed: wholeFlag(values.seed, 'seed', 0, 1),
            rerankBy: rerankBy(values['rerank-by']),
            stepScores: !values['no-step-scores'] && !noStepScorer,
            // Meta-verification feeds only the reward R_Z, not a figure here; off saves about a fifth.
            metaVerify: !values['no-meta'],
            // Recorded in the settings, so a journal of free runs is never resumed constrained.
            constrained: !values.free,
            // Prompt files here win over the shipped ones; their digest is in the fingerprint, so a
            // journal is never resumed under other prompts.
            promptDir: values['prompts-dir'],
          },
        });
      } else if (kind === 'tests') {
        // A stages file that cannot be used is refused before the model loads.
        if (values.stages) {
          try {
            loadStageChain(values.stages);
          } catch (e) {
            throw new UsageError(`--stages: ${(e as Error).message}`);
          }
        }
        const model = await openModel(values);
        opened.push(model);
        outcome = await evalTests({
          ...common,
          data,
          model,
          mutantsPerFunction: wholeFlag(values.mutants, 'mutants', 1, 8),
          settings: {
            maxTokens: wholeFlag(
              values['max-tokens'],
              'max-tokens',
              16,
              settingDefault('tests.stageMaxTokens'),
            ),
            temperature: fractionFlag(values.temperature, 'temperature', 2, 0),
            seed: values.seed === undefined ? undefined : wholeFlag(values.seed, 'seed', 0, 0),
            perTestTimeoutMs: SANDBOX_DEFAULTS.perTestTimeoutMs,
            memoryMb: SANDBOX_DEFAULTS.memoryMb,
            // Implementations sampled as evidence for each test's verdict, besides the stage-5 code.
            evidenceSamples: wholeFlag(values.samples, 'samples', 0, DEFAULT_EVIDENCE_SAMPLES),
            stagesFile: values.stages,
            assertionGrammar: model.info.backend === 'openai' ? assertionGrammarOf(values) : undefined,
          },
        });
      } else {
        let scorer: StepScorer;
        let device = 'cpu';
        const head = readStepHead(values['step-scorer']);
        if (head && values['prm-dir'])
          throw new UsageError(
            'give --prm-dir or --step-scorer, not both: one step scorer is measured at a time.',
          );
        if (values['prm-dir']) {
          const prm = await OnnxPrmScorer.load({ modelDir: values['prm-dir'] });
          opened.push(prm);
          scorer = prm;
        } else if (head) {
          const model: ModelBackend = await openModel(values);
          opened.push(model);
          scorer = learnedStepScorer(model, head, values['prompts-dir'], values.journal);
          device = model.info.device;
        } else {
          const model: ModelBackend = await openModel(values);
          opened.push(model);
          scorer = new VerifierStepScorer(model, loadPrompt('step-judge'));
          device = model.info.device;
        }
        outcome = await evalPrm({
          ...common,
          labels: data,
          scorer,
          device,
          // A step head carries the threshold chosen with it on its training split.
          threshold: fractionFlag(values.threshold, 'threshold', 1, head?.threshold ?? 0.5),
          heldOutOnly: values['held-out'] ?? false,
        });
      }
      if (kind === 'prove' && values['save-calibrator'])
        saveFittedCalibrator(outcome.result as EvalResult, values['save-calibrator']);
      return finish(outcome, values.json ?? false, progressMode === 'json' ? emit : null);
    } finally {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      for (const o of opened.reverse()) await o.dispose().catch(() => undefined);
    }
  },
};

function readCalibrator(file: string): { calibrator: Calibrator; file: string } {
  try {
    return { calibrator: loadCalibrator(file), file: path.resolve(file) };
  } catch (e) {
    throw new UsageError(`--calibrator: ${(e as Error).message}`);
  }
}

/** Writes the calibrator fitted on the fit side of the run, to ship or to pass to --calibrator. */
function saveFittedCalibrator(r: EvalResult, file: string): void {
  const fitted = (r.metrics as ProveMetrics).judgment.fitted;
  if (!fitted?.models.length) {
    process.stderr.write(
      'stepwise eval: no calibrator was saved: the fit side has too few right or wrong candidates to fit one.\n',
    );
    return;
  }
  const source = { ...fitted.source, data: r.dataset.path, model: r.model.name, command: r.command };
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...fitted, source }, null, 2) + '\n');
  process.stderr.write(`calibrator: ${file} (fitted on the fit side only)\n`);
}

function rerankBy(value: string | undefined): 'verifier' | 'prm' | 'self' | undefined {
  if (value === undefined) return undefined;
  // Runs here are judged afterwards, by the calibrator fitted on the fit side, so P(correct) cannot rank them.
  if (value !== 'verifier' && value !== 'prm' && value !== 'self')
    throw new UsageError(`--rerank-by must be verifier, prm or self, not "${value}".`);
  return value;
}

function finish(
  outcome: EvaluationOutcome<unknown>,
  json: boolean,
  emit: ((e: Record<string, unknown>) => void) | null,
): number {
  const r = outcome.result as EvalResult;
  process.stdout.write(json ? JSON.stringify(r, null, 2) + '\n' : evalSummaryText(r));
  const files = { result: outputPathsOf(r), report: r.files.report, journal: r.files.journal };
  if (emit)
    emit({
      type: 'done',
      ...files,
      complete: r.complete,
      cancelled: outcome.cancelled,
      stoppedBy: outcome.stoppedBy,
    });
  else process.stderr.write(`results: ${files.result}\nreport: ${files.report}\n`);
  if (outcome.stoppedBy) {
    process.stderr.write(
      `stepwise eval: stopped after repeated failures: ${outcome.stoppedBy.message}\n${outcome.stoppedBy.hint ? `hint: ${outcome.stoppedBy.hint}\n` : ''}`,
    );
    return 1;
  }
  if (outcome.cancelled) {
    process.stderr.write(
      'stepwise eval: stopped; run the same command again to continue where it stopped.\n',
    );
    return 130;
  }
  return r.items.failed.length ? 1 : 0;
}

function outputPathsOf(r: EvalResult): string {
  return r.files.report.replace(/\.html$/, '.json');
}
