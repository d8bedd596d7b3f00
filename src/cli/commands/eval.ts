import * as path from 'node:path';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, assertionGrammarOf, openModel, parseWithModel } from '../modelOptions';
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
import { OnnxPrmScorer } from '../../core/model/onnx/prmScorer';
import type { StepScorer } from '../../core/model/stepScorer';
import { VerifierStepScorer } from '../../core/prove/stepScores';
import { findPackageRoot } from '../../core/resources';
import { requireDataFile } from '../../core/eval/datasets';
import type { ModelBackend } from '../../core/model/types';
import { evalSummaryText } from '../../core/eval/summaryText';
import { loadStageChain } from '../../core/codeReasoning/stages';
import { DEFAULT_EVIDENCE_SAMPLES } from '../../core/codeReasoning/evidence';

const COMMON = '[--out FILE.json] [--fresh] [--limit N] [--concurrency N] [--json] [--progress text|json]';
const USAGE = [
  `stepwise eval prove [--data MATH.jsonl] [--candidates N] [--iterations N] [--max-tokens N] [--temperature T] [--seed S] [--rerank-by verifier|prm|self] [--prm-dir DIR] [--prompts-dir DIR] [--no-step-scores] [--no-meta] [--free] ${COMMON} ${MODEL_USAGE}`,
  `       stepwise eval tests [--data HumanEval.jsonl.gz|mbpp.jsonl] [--mutants K] [--samples N] [--max-tokens N] [--seed S] [--stages STAGES.json] ${COMMON} ${MODEL_USAGE}`,
  `       stepwise eval prm --labels FILE [--prm-dir DIR | model options] [--threshold T] ${COMMON}`,
].join('\n');

const OPTIONS = {
  data: { type: 'string' },
  labels: { type: 'string' },
  out: { type: 'string' },
  fresh: { type: 'boolean' },
  limit: { type: 'string' },
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
  'prompts-dir': { type: 'string' },
  'no-step-scores': { type: 'boolean' },
  free: { type: 'boolean' },
  'no-meta': { type: 'boolean' },
  mutants: { type: 'string' },
  stages: { type: 'string' },
  threshold: { type: 'string' },
} as const;

function int(value: string | undefined, name: string, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`--${name} must be a whole number ≥ ${min}, not "${value}".`);
  return n;
}

function fraction(value: string | undefined, name: string, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!(n >= 0 && n <= max))
    throw new UsageError(`--${name} must be a number from 0 to ${max}, not "${value}".`);
  return n;
}

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
      limit: values.limit === undefined ? undefined : int(values.limit, 'limit', 1, 0),
      concurrency: int(values.concurrency, 'concurrency', 1, 1),
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
        const noStepScorer = !!values.endpoint && !values['prm-dir'];
        if (noStepScorer && values['rerank-by'] === 'prm')
          throw new UsageError('--rerank-by prm needs step scores: with --endpoint, add --prm-dir DIR.');
        if (noStepScorer && !values['no-step-scores'])
          common.onNotice?.(
            'note: no step scores with --endpoint alone (they need a local model); add --prm-dir DIR for them.',
          );
        if (values['prompts-dir']) checkPromptsDir(values['prompts-dir']);
        const prm = values['prm-dir'] ? await OnnxPrmScorer.load({ modelDir: values['prm-dir'] }) : undefined;
        if (prm) opened.push(prm);
        const model = await openModel(values);
        opened.push(model);
        outcome = await evalProve({
          ...common,
          data,
          models: { generator: model, stepScorer: prm },
          options: {
            candidates: int(values.candidates, 'candidates', 1, 4),
            maxIterations: int(values.iterations, 'iterations', 1, 2),
            maxTokens: int(values['max-tokens'], 'max-tokens', 16, 512),
            temperature: fraction(values.temperature, 'temperature', 2, 0.7),
            seed: int(values.seed, 'seed', 0, 1),
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
          mutantsPerFunction: int(values.mutants, 'mutants', 1, 8),
          settings: {
            maxTokens: int(values['max-tokens'], 'max-tokens', 16, 256),
            temperature: fraction(values.temperature, 'temperature', 2, 0),
            seed: values.seed === undefined ? undefined : int(values.seed, 'seed', 0, 0),
            perTestTimeoutMs: 5000,
            memoryMb: 512,
            // Implementations sampled as evidence for each test's verdict, besides the stage-5 code.
            evidenceSamples: int(values.samples, 'samples', 0, DEFAULT_EVIDENCE_SAMPLES),
            stagesFile: values.stages,
            assertionGrammar: model.info.backend === 'openai' ? assertionGrammarOf(values) : undefined,
          },
        });
      } else {
        let scorer: StepScorer;
        let device = 'cpu';
        if (values['prm-dir']) {
          const prm = await OnnxPrmScorer.load({ modelDir: values['prm-dir'] });
          opened.push(prm);
          scorer = prm;
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
          threshold: fraction(values.threshold, 'threshold', 1, 0.5),
        });
      }
      return finish(outcome, values.json ?? false, progressMode === 'json' ? emit : null);
    } finally {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      for (const o of opened.reverse()) await o.dispose().catch(() => undefined);
    }
  },
};

function rerankBy(value: string | undefined): 'verifier' | 'prm' | 'self' | undefined {
  if (value === undefined) return undefined;
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
