import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, modelConfigFrom, openModel, parseWithModel } from '../modelOptions';
import { createModelBackend } from '../../core/model/factory';
import type { ModelBackend } from '../../core/model/types';
import { distribution, type PracticeSet } from '../../core/practice/loop';
import { runPracticeRounds } from '../../core/practice/rounds';
import { withWeakSolver } from '../../core/practice/weakSolver';
import { retrainQuestionGenerator } from '../../core/trainer/retrainQuestionGenerator';
import { findTrainerPython } from '../../core/trainer/python';
import { findPackageRoot } from '../../core/resources';
import { exportPracticeSet } from '../../core/practice/export';
import { saveJsonAtomically } from '../../core/files';
import { wholeFlag } from '../flags';
import { PRACTICE_WEIGHTS, settingDefault } from '../../core/settings/schema';

const USAGE = `stepwise practice generate [--topic TEXT] [--questions N] [--rounds R] [--weak-model-dir DIR] [--retrain-generator BASE [--trainer-args "..."] [--python PATH]] [--judge-passes K] [--pair-passes P] [--best-of N] [--seed S] [--out-dir DIR] [--json] ${MODEL_USAGE}
       stepwise practice export FILE [--out-dir DIR]`;

export const practiceCommand: CliCommand = {
  name: 'practice',
  summary: 'Generate a reliability-guided practice set, or export one for the trainer',
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'export') {
      const { values, positionals } = parseWithModel(rest, { 'out-dir': { type: 'string' } });
      if (positionals.length !== 1) throw new UsageError('export needs the practice-set FILE.');
      const set = JSON.parse(fs.readFileSync(positionals[0], 'utf8')) as PracticeSet;
      const out = exportPracticeSet(set, values['out-dir'] ?? path.dirname(positionals[0]));
      process.stdout.write(JSON.stringify(out) + '\n');
      return 0;
    }
    if (sub !== 'generate') throw new UsageError('Use "practice generate" or "practice export".');
    const { values } = parseWithModel(rest, {
      topic: { type: 'string' },
      questions: { type: 'string' },
      rounds: { type: 'string' },
      'weak-model-dir': { type: 'string' },
      'retrain-generator': { type: 'string' },
      'trainer-args': { type: 'string' },
      python: { type: 'string' },
      'judge-passes': { type: 'string' },
      'pair-passes': { type: 'string' },
      'best-of': { type: 'string' },
      seed: { type: 'string' },
      'out-dir': { type: 'string' },
      json: { type: 'boolean' },
    });
    const rounds = wholeFlag(values.rounds, 'rounds', 1, 1);
    const weakDir = values['weak-model-dir'];
    if (weakDir !== undefined && !fs.existsSync(weakDir))
      throw new UsageError(`--weak-model-dir ${weakDir} does not exist.`);
    // --retrain-generator BASE: between rounds the question generator is trained on the round's R_G,
    // starting from BASE (the trainer's form of the loop's model: 'smollm2', a GGUF or a Hugging
    // Face folder), then from the last retrained one; the trainer is found before any round runs.
    let retrainBase = values['retrain-generator'];
    if (retrainBase === undefined && (values['trainer-args'] !== undefined || values.python !== undefined))
      throw new UsageError('--trainer-args and --python go with --retrain-generator BASE.');
    const python =
      retrainBase === undefined
        ? ''
        : (values.python ?? (await findTrainerPython({ repositoryRoot: findPackageRoot() })));
    const trainerArgs = (values['trainer-args'] ?? '--max-steps 20 --save-steps 20 --batch-size 4')
      .split(/\s+/)
      .filter(Boolean);
    const model = await openModel(values);
    try {
      // The weak-model regime: a smaller model (or an earlier checkpoint) answers greedily, so the
      // judge must tell its answers from the strong regimes' (R_sep) on more than sampling noise.
      const openWeak = (dir: string) =>
        createModelBackend(modelConfigFrom({ 'model-dir': dir, device: values.device }));
      return await withWeakSolver(weakDir, openWeak, (weak) => practiceRounds(weak), '--weak-model-dir');
    } finally {
      await model.dispose();
    }

    async function practiceRounds(weak: ModelBackend | undefined): Promise<number> {
      const outDir = values['out-dir'] ?? path.join('.stepwise', 'practice');
      const summaries: Record<string, unknown>[] = [];
      let rewards = '';
      const retrain = async (round: number) => {
        try {
          const trained = await retrainQuestionGenerator({
            python,
            baseModel: retrainBase!,
            rewards,
            outDir: path.join(outDir, `question-generator-round-${round}`),
            trainerArgs,
            onLog: (line) => process.stderr.write(`[trainer] ${line}\n`),
          });
          retrainBase = trained.model;
          summaries[round - 1]!.retrainedGenerator = trained.onnx;
          return await createModelBackend(
            modelConfigFrom({ 'model-dir': trained.onnx, device: values.device }),
          );
        } catch (e) {
          // One round's failure (e.g. every question tied on R_G, so none has an advantage) leaves
          // the next round with the generator it had; the summary says so.
          summaries[round - 1]!.retrainError = (e as Error).message;
          process.stderr.write(
            `round ${round}: the question generator was not retrained: ${(e as Error).message}\n`,
          );
          return undefined;
        }
      };
      const sets = await runPracticeRounds({
        generator: model,
        weakSolver: weak,
        rounds,
        questions: wholeFlag(values.questions, 'questions', 1, settingDefault('practice.questions')),
        topic: values.topic,
        judgePasses: wholeFlag(
          values['judge-passes'],
          'judge-passes',
          1,
          settingDefault('practice.judgePasses'),
        ),
        pairPasses: wholeFlag(values['pair-passes'], 'pair-passes', 1, 2),
        bestOfN: wholeFlag(values['best-of'], 'best-of', 1, 3),
        seed: wholeFlag(values.seed, 'seed', 0, 1),
        weights: PRACTICE_WEIGHTS,
        thresholds: settingDefault('practice.thresholds'),
        onEvent: (e) => {
          if (e.type === 'phase') process.stderr.write(`question ${e.question}/${e.of}: ${e.phase}\n`);
        },
        // Each round is saved and exported as soon as it ends, so a later failure loses nothing.
        onRound: async (round, set) => {
          const file = path.join(outDir, `${set.createdAt.replace(/[:.]/g, '-')}.json`);
          await saveJsonAtomically(file, set);
          const exported = exportPracticeSet(set, path.join(outDir, path.basename(file, '.json')));
          rewards = exported.rewards;
          summaries.push(roundSummary(round, file, exported, set));
          if (rounds > 1)
            process.stderr.write(`round ${round}/${rounds}: ${JSON.stringify(summaries.at(-1))}\n`);
        },
        nextGenerator: retrainBase === undefined ? undefined : (round) => retrain(round),
      });
      const summary = rounds === 1 ? summaries[0] : { rounds: summaries };
      process.stdout.write(
        values.json
          ? JSON.stringify(rounds === 1 ? { ...sets[0], summary } : { sets, summary }, null, 2) + '\n'
          : `${JSON.stringify(summary, null, 2)}\n`,
      );
      return 0;
    }
  },
};

function roundSummary(
  round: number,
  file: string,
  exported: ReturnType<typeof exportPracticeSet>,
  set: PracticeSet,
): Record<string, unknown> {
  return {
    round,
    file,
    ...exported,
    kept: set.questions.filter((q) => q.kept).length,
    total: set.questions.length,
    rCons: distribution(set.questions.map((q) => q.reliability.rCons)),
    rSep: distribution(
      set.questions.map((q) => q.reliability.rSep ?? Number.NaN).filter((x) => !Number.isNaN(x)),
    ),
    rStab: distribution(set.questions.map((q) => q.reliability.rStab)),
  };
}
