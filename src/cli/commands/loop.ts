import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, openModel, parseWithModel } from '../modelOptions';
import { readMathProblems, requireDataFile } from '../../core/eval/datasets';
import { runEvalInChild } from '../../core/eval/childProcess';
import { progressLine, type EvalProgress } from '../../core/eval/runner';
import { loopFolder } from '../../core/loop/folders';
import { scoreHeldOutSamples, summarizeBestOfN, type LoopBestOfN } from '../../core/loop/bestOfN';
import { LoopError, runLoop, type LoopEvent } from '../../core/loop/loop';
import { loopVerdict } from '../../core/loop/verdict';
import { LOOP_SAMPLING_LENGTHS, type SampledSolution } from '../../core/loop/solutions';
import type { MathProblem } from '../../core/eval/datasets';
import { OnnxPrmScorer } from '../../core/model/onnx/prmScorer';
import { readPrmReport } from '../../core/model/onnx/prmReport';
import { findPackageRoot } from '../../core/resources';
import { findTrainerPython } from '../../core/trainer/python';
import { wholeFlag } from '../flags';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../../core/model/lengths';

const USAGE = `stepwise loop [--data MATH.jsonl] [--levels 1,2] [--workspace DIR] [--out DIR] [--train N] [--held-out N] [--held-out-labels N] [--solutions N] [--samples-per-step N] [--search first-error|every-step] [--unsolved skip|label] [--max-tokens N] [--self-eval-max-tokens N] [--base-model M] [--current-prm DIR] [--trainer-args "..."] [--python PATH] [--label-only] [--progress text|json] ${MODEL_USAGE}
  --max-tokens N: most tokens of one sampled solution (default ${LOOP_SAMPLING_LENGTHS.maxTokens}; Prove's is ${DEFAULT_MAX_OUTPUT_TOKENS})
  --self-eval-max-tokens N: most tokens of its self-evaluation (default ${LOOP_SAMPLING_LENGTHS.selfEvalMaxTokens})
  Shorter than Prove's: the loop samples several solutions of every problem, and its journals record these lengths.`;

const OPTIONS = {
  data: { type: 'string' },
  levels: { type: 'string' },
  workspace: { type: 'string' },
  out: { type: 'string' },
  train: { type: 'string' },
  'held-out': { type: 'string' },
  'held-out-labels': { type: 'string' },
  solutions: { type: 'string' },
  'samples-per-step': { type: 'string' },
  search: { type: 'string' },
  unsolved: { type: 'string' },
  'max-tokens': { type: 'string' },
  'self-eval-max-tokens': { type: 'string' },
  'base-model': { type: 'string' },
  'current-prm': { type: 'string' },
  'trainer-args': { type: 'string' },
  python: { type: 'string' },
  seed: { type: 'string' },
  progress: { type: 'string' },
  'label-only': { type: 'boolean' },
} as const;

/**
 * `stepwise loop`: annotations in, a measured PRM out. Samples and auto-labels solutions of
 * training problems, trains and exports a PRM on the workspace's labels, and evaluates it on
 * held-out problems: step AUROC against the verifier's log-probabilities with `stepwise eval prm`
 * (in child processes, each resumable), and best-of-N on the held-out samples, the PRM against
 * self-score, majority vote and one sample; a rerun continues where a killed one stopped. With `--progress json`, stderr carries
 * the same JSON lines as `stepwise eval` (progress, notice, done), so the editor follows a loop the
 * way it follows an evaluation; a cancelled loop ends with a `done` event marked cancelled.
 */
export const loopCommand: CliCommand = {
  name: 'loop',
  summary: 'Sample, auto-label, train a PRM, export it and evaluate it on held-out problems (resumable)',
  usage: USAGE,
  async run(argv) {
    const { values } = parseWithModel(argv, OPTIONS);
    const root = findPackageRoot();
    const data = values.data ?? path.join(root, '..', 'shared', 'data', 'MATH-500.jsonl');
    requireDataFile(data, 'prove');
    const workspace = path.resolve(values.workspace ?? process.cwd());
    const loopDir = path.resolve(values.out ?? loopFolder(workspace));
    const search = values.search ?? 'first-error';
    if (search !== 'first-error' && search !== 'every-step')
      throw new UsageError('--search must be first-error or every-step.');
    const unsolved = values.unsolved ?? 'skip';
    if (unsolved !== 'skip' && unsolved !== 'label')
      throw new UsageError('--unsolved must be skip or label.');
    const progressMode = values.progress ?? 'text';
    if (progressMode !== 'text' && progressMode !== 'json')
      throw new UsageError('--progress must be text or json.');
    // Shorter than Prove's lengths on purpose (LOOP_SAMPLING_LENGTHS says why).
    const maxTokens = wholeFlag(values['max-tokens'], 'max-tokens', 16, LOOP_SAMPLING_LENGTHS.maxTokens);
    const solutions = wholeFlag(values.solutions, 'solutions', 1, 4);
    const selfEvalMaxTokens = wholeFlag(
      values['self-eval-max-tokens'],
      'self-eval-max-tokens',
      8,
      LOOP_SAMPLING_LENGTHS.selfEvalMaxTokens,
    );
    const heldOutProblems = wholeFlag(values['held-out'], 'held-out', 1, 100);
    const heldOutLabelProblems = wholeFlag(values['held-out-labels'], 'held-out-labels', 1, heldOutProblems);
    const seed = wholeFlag(values.seed, 'seed', 0, 0);
    const items = withLevels(readMathProblems(data).items, values.levels);
    // The PRM in use (the editor passes stepwise.prm.modelPath): the new one must beat it to be recommended.
    const currentPrm = values['current-prm'] === undefined ? undefined : path.resolve(values['current-prm']);
    if (currentPrm !== undefined) {
      try {
        readPrmReport(currentPrm);
      } catch (e) {
        throw new UsageError(
          `--current-prm ${currentPrm} is not an exported PRM folder: ${(e as Error).message} Pass the folder "Use as Step Scorer" set, or leave the option out to compare with the verifier only.`,
        );
      }
    }
    // --label-only: sample and label on a machine without the trainer; train later with the same command.
    const labelOnly = values['label-only'] === true;
    const python = labelOnly ? '' : (values.python ?? (await findTrainerPython({ repositoryRoot: root })));
    const generator = await openModel(values);
    const cli = [process.execPath, path.join(root, 'dist', 'cli.js')];
    const modelArgs = [
      'model-dir',
      'variant',
      'device',
      'endpoint',
      'model',
      'context-window',
      'tokenizer',
    ].flatMap((k) => {
      const v = (values as Record<string, string | boolean | undefined>)[k];
      return typeof v === 'string' ? [`--${k}`, v] : [];
    });
    const emit = (event: Record<string, unknown>) => process.stderr.write(JSON.stringify(event) + '\n');
    const abort = new AbortController();
    const stop = () => abort.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const report = (phase: string, p: EvalProgress) =>
      progressMode === 'json'
        ? emit({ type: 'progress', phase, ...p })
        : process.stderr.write(`loop ${phase}: ${progressLine(p)}\n`);
    const notice = (message: string) =>
      progressMode === 'json' ? emit({ type: 'notice', message }) : process.stderr.write(`${message}\n`);
    const onEvent = (e: LoopEvent) => {
      if (e.progress) report(`${e.phase} (${e.set})`, e.progress);
      else if (e.message) notice(`loop ${e.phase}: ${e.message}`);
    };
    const childEval = async (args: string[], out: string) => {
      const outcome = await runEvalInChild({
        command: [...cli, 'eval', ...args, '--out', out, ...modelArgs],
        cwd: workspace,
        signal: abort.signal,
        onProgress: (p) => report(`evaluate (${args[0]})`, p),
        onOutput: (line) => notice(`  ${line}`),
      });
      if (!outcome.done?.complete)
        throw new UsageError(`stepwise eval ${args[0]} did not finish: ${outcome.output.slice(-400)}`);
      return JSON.parse(fs.readFileSync(outcome.done.result, 'utf8')) as Record<string, unknown>;
    };
    try {
      const outcome = await runLoop({
        labelOnly,
        workspace,
        loopDir,
        problems: items,
        trainProblems: wholeFlag(values.train, 'train', 1, 60),
        heldOutProblems,
        heldOutLabelProblems,
        generator,
        sampling: {
          solutionsPerProblem: solutions,
          maxTokens,
          selfEvalMaxTokens,
          temperature: 0.8,
          seed,
        },
        labelling: {
          samplesPerStep: wholeFlag(values['samples-per-step'], 'samples-per-step', 1, 4),
          search,
          unsolved,
          maxTokens,
          temperature: 0.8,
          seed,
        },
        trainer: {
          python,
          baseModel: values['base-model'] ?? 'smollm2',
          extraArgs: (values['trainer-args'] ?? '--max-steps 60 --save-steps 20 --batch-size 4')
            .split(/\s+/)
            .filter(Boolean),
        },
        evaluate: async ({ heldOutLabels, prmDir, heldOut }) => {
          // With --unsolved skip, held-out problems that no sample solved get no labels: when none
          // was solved there is no step AUROC to measure, and best-of-N still is.
          const why =
            'no held-out problem was solved by any of its samples, so no held-out step was labelled';
          const labelled = hasLines(heldOutLabels);
          if (!labelled) notice(`loop evaluate: step AUROC skipped: ${why}.`);
          // A PRM compared with itself tells nothing: the current one counts only when it is another.
          const baseline = currentPrm === path.resolve(prmDir) ? undefined : currentPrm;
          const stepAuroc = (scorerArgs: string[], file: string) =>
            labelled
              ? childEval(['prm', '--labels', heldOutLabels, ...scorerArgs], path.join(loopDir, file))
              : { skipped: why };
          return {
            prmSteps: await stepAuroc(['--prm-dir', prmDir], 'eval-prm.json'),
            verifierSteps: await stepAuroc([], 'eval-prm-verifier.json'),
            ...(baseline
              ? {
                  currentPrm: baseline,
                  currentPrmSteps: await stepAuroc(['--prm-dir', baseline], 'eval-prm-current.json'),
                }
              : {}),
            bestOfN: await bestOfNOnSamples(prmDir, heldOut, loopDir, abort.signal, notice, baseline),
          };
        },
        signal: abort.signal,
        onEvent,
      });
      const bestOfN = (outcome.state.evaluate?.bestOfN as BestOfNRecord | undefined)?.metrics?.bestOfN;
      const verdict = labelOnly
        ? undefined
        : loopVerdict(
            path.join(loopDir, 'eval-prm.json'),
            path.join(loopDir, 'eval-prm-verifier.json'),
            bestOfN,
            // The PRM the evaluation compared with, which a resumed loop keeps from its first run.
            outcome.state.evaluate?.currentPrm ? path.join(loopDir, 'eval-prm-current.json') : undefined,
          );
      const summary = { command: `stepwise ${['loop', ...argv].join(' ')}`, loopDir, verdict, ...outcome };
      // A label-only run is not a finished loop: without loop-report.json its folder is the one the
      // next run (without --label-only) continues in.
      const result = path.join(loopDir, labelOnly ? 'label-report.json' : 'loop-report.json');
      fs.writeFileSync(result, JSON.stringify(summary, null, 2) + '\n');
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      notice(
        verdict?.summary ??
          `Sampled and labelled; the training labels are in ${path.join(workspace, '.stepwise', 'labels')}. Run the same command without --label-only to train, export and evaluate.`,
      );
      if (progressMode === 'json') emit({ type: 'done', ...loopDone(loopDir, result, false) });
      return 0;
    } catch (e) {
      // Cancelled on purpose (whatever the phase then threw): what finished is journaled, and the
      // editor hears a stop, not a failure.
      if (!abort.signal.aborted) throw e;
      if (progressMode === 'json') emit({ type: 'done', ...loopDone(loopDir, null, true) });
      else
        process.stderr.write(
          e instanceof LoopError
            ? `${e.message} ${e.hint}\n`
            : 'The loop was cancelled; run it again to continue.\n',
        );
      return 143;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await generator.dispose();
    }
  },
};

function hasLines(file: string): boolean {
  return fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim().length > 0;
}

/**
 * The problems of the MATH levels in `levels` ("1,2"), in file order; all of them without it. A 0.5B
 * generator rarely solves level 4–5 problems, and a PRM learns little from solutions that are all
 * wrong, so a CPU loop runs on the easier levels.
 */
function withLevels(items: MathProblem[], levels: string | undefined): MathProblem[] {
  if (levels === undefined) return items;
  const wanted = levels.split(',').map((l) => Number(l.trim()));
  if (!wanted.length || wanted.some((l) => !Number.isInteger(l) || l < 1))
    throw new UsageError(`--levels takes whole numbers separated by commas (1,2), not "${levels}".`);
  const kept = items.filter((p) => p.level !== undefined && wanted.includes(p.level));
  if (!kept.length) throw new UsageError(`--levels ${levels}: the data has no problem of those levels.`);
  return kept;
}

/** What the evaluate phase records of best-of-N (`best-of-n.json` holds the samples too). */
interface BestOfNRecord {
  kind: 'loop-best-of-n';
  result: string;
  metrics: { bestOfN: LoopBestOfN };
}

/**
 * Best-of-N by the new PRM on the held-out samples, against self-score, majority vote and one
 * sample, written to `best-of-n.json` with each choice's samples, so the figure can be checked.
 */
async function bestOfNOnSamples(
  prmDir: string,
  heldOut: { problems: MathProblem[]; samples: SampledSolution[][] },
  loopDir: string,
  signal: AbortSignal,
  notice: (message: string) => void,
  currentPrmDir?: string,
): Promise<BestOfNRecord> {
  const score = async (dir: string, which: string) => {
    const prm = await OnnxPrmScorer.load({ modelDir: dir });
    try {
      const scored = await scoreHeldOutSamples(prm, heldOut.problems, heldOut.samples, {
        signal,
        onProblem: (done, total) => {
          if (done % 10 === 0 || done === total)
            notice(`loop evaluate: ${which} scored the samples of ${done}/${total} held-out problems`);
        },
      });
      return { scored, info: prm.info };
    } finally {
      await prm.dispose();
    }
  };
  const { scored, info } = await score(prmDir, 'the new PRM');
  if (currentPrmDir) {
    const current = await score(currentPrmDir, 'the current PRM');
    scored.forEach((row, p) =>
      row.forEach((s, i) => (s.currentPrmScore = current.scored[p][i]?.prmScore ?? null)),
    );
  }
  const metrics = { bestOfN: summarizeBestOfN(scored, info) };
  const file = path.join(loopDir, 'best-of-n.json');
  const record = {
    kind: 'loop-best-of-n',
    prmDir,
    ...(currentPrmDir ? { currentPrmDir } : {}),
    metrics,
    items: heldOut.problems.map((p, i) => ({ id: p.id, reference: p.answer, samples: scored[i] })),
  };
  fs.writeFileSync(file, JSON.stringify(record, null, 2) + '\n');
  return { kind: 'loop-best-of-n', result: file, metrics };
}

/** The `done` event of `--progress json`, in the shape `stepwise eval` uses (ChildEvalDone). */
function loopDone(loopDir: string, result: string | null, cancelled: boolean) {
  return {
    result: result ?? path.join(loopDir, 'loop-report.json'),
    report: path.join(loopDir, 'eval-prm.html'),
    journal: path.join(loopDir, 'loop.json'),
    complete: result !== null,
    cancelled,
    stoppedBy: null,
  };
}
