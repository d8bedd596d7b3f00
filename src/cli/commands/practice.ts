import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { UsageError } from '../command';
import { MODEL_USAGE, openModel, parseWithModel } from '../modelOptions';
import { distribution, generatePracticeSet, type PracticeSet } from '../../core/practice/loop';
import { exportPracticeSet } from '../../core/practice/export';
import { saveJsonAtomically } from '../../core/files';
import { wholeFlag } from '../flags';
import { PRACTICE_WEIGHTS, settingDefault } from '../../core/settings/schema';

const USAGE = `stepwise practice generate [--topic TEXT] [--questions N] [--judge-passes K] [--pair-passes P] [--best-of N] [--seed S] [--out-dir DIR] [--json] ${MODEL_USAGE}
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
      'judge-passes': { type: 'string' },
      'pair-passes': { type: 'string' },
      'best-of': { type: 'string' },
      seed: { type: 'string' },
      'out-dir': { type: 'string' },
      json: { type: 'boolean' },
    });
    const model = await openModel(values);
    try {
      const set = await generatePracticeSet({
        generator: model,
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
      });
      const outDir = values['out-dir'] ?? path.join('.stepwise', 'practice');
      const file = path.join(outDir, `${set.createdAt.replace(/[:.]/g, '-')}.json`);
      await saveJsonAtomically(file, set);
      const exported = exportPracticeSet(set, path.join(outDir, path.basename(file, '.json')));
      const summary = {
        file,
        ...exported,
        kept: set.questions.filter((q) => q.kept).length,
        total: set.questions.length,
        rCons: distribution(set.questions.map((q) => q.reliability.rCons)),
        rStab: distribution(set.questions.map((q) => q.reliability.rStab)),
      };
      process.stdout.write(
        values.json
          ? JSON.stringify({ ...set, summary }, null, 2) + '\n'
          : `${JSON.stringify(summary, null, 2)}\n`,
      );
      return 0;
    } finally {
      await model.dispose();
    }
  },
};
