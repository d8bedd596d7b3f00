import type { CliCommand } from '../command';
import { parseCommandLine, UsageError } from '../command';
import { OnnxPrmScorer } from '../../core/model/onnx/prmScorer';
import { parseProofDocument } from '../../core/steps/document';
import { readInputFile } from './prove';

/** `stepwise score-steps FILE --prm-dir DIR`: each step of a proof document scored by a trained PRM. */
export const scoreStepsCommand: CliCommand = {
  name: 'score-steps',
  summary: 'Score each step of a proof document with a process reward model exported by the trainer',
  usage: 'stepwise score-steps FILE --prm-dir DIR [--json]',
  async run(argv) {
    const parsed = parseCommandLine(argv, { json: { type: 'boolean' }, 'prm-dir': { type: 'string' } });
    const { values, positionals } = parsed;
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE: a proof document.');
    if (!values['prm-dir'])
      throw new UsageError('--prm-dir DIR is required: a PRM folder written by the trainer export job.');
    const doc = parseProofDocument(readInputFile(positionals[0]));
    if (!doc.problem || doc.steps.length === 0)
      throw new UsageError(`${positionals[0]} needs a "## Problem" section and a "## Solution" with steps.`);
    const prm = await OnnxPrmScorer.load({ modelDir: values['prm-dir'] });
    try {
      const scores = await prm.scoreSteps(
        doc.problem,
        doc.steps.map((s) => s.text),
      );
      const steps = doc.steps.map((s, i) => ({ index: s.index, text: s.text, score: scores[i] }));
      if (values.json) {
        process.stdout.write(JSON.stringify({ scorer: prm.info, steps }, null, 2) + '\n');
      } else {
        for (const s of steps)
          process.stdout.write(
            `${s.score.toFixed(3)}  step ${s.index + 1}: ${s.text.split('\n')[0].slice(0, 80)}\n`,
          );
      }
      return 0;
    } finally {
      await prm.dispose();
    }
  },
};
