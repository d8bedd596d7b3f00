/**
 * `npm run bench:structured` — structured generation measured, free vs constrained side by side:
 *   math       N MATH-500 problems through Prove: share of answers with both sections and a score,
 *              final-answer accuracy, AUROC of the expected self-score against answer correctness;
 *   humaneval  the 164 HumanEval functions, one test-writing stage: share of admitted tests that are
 *              syntactically valid, share passing the canonical solution, share of generations that
 *              hit their token limit;
 *   practice   a practice sample: unreadable judge scores, R_cons / R_sep / R_stab.
 * Writes bench/results/structured.json after every item and resumes from it (same settings).
 *
 *   npm run bench:structured -- [--limit N] [--parts math,humaneval,practice] [--modes free,constrained]
 *     [--model-dir DIR] [--variant q4|q8|fp32] [--out FILE] [--math FILE] [--humaneval FILE]
 *     [--questions N] [--judge-passes K]
 * Progress goes to stderr, one line per item.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_VARIANT, defaultModelDir } from '../src/core/model/defaults';
import { createModelBackend } from '../src/core/model/factory';
import { planSupportOf } from '../src/core/model/planCapability';
import { findPackageRoot } from '../src/core/resources';
import { benchMachine, portablePath } from './machine';
import { loadHumanEval, runHumanEval, summariseHumanEval } from './structured/humaneval';
import { loadMath, runMath, summariseMath } from './structured/math';
import { runPractice, summarisePractice } from './structured/practice';
import { Results, type Mode } from './structured/results';

const root = findPackageRoot();
const data = (name: string) => path.join(root, '..', 'shared', 'data', name);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      limit: { type: 'string' },
      parts: { type: 'string', default: 'math,humaneval,practice' },
      modes: { type: 'string', default: 'free,constrained' },
      'model-dir': { type: 'string' },
      variant: { type: 'string', default: DEFAULT_VARIANT },
      out: { type: 'string', default: path.join(root, 'bench', 'results', 'structured.json') },
      math: { type: 'string', default: data('MATH-500.jsonl') },
      humaneval: { type: 'string', default: data('HumanEval.jsonl.gz') },
      questions: { type: 'string', default: '5' },
      'judge-passes': { type: 'string', default: '2' },
    },
  });
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
    throw new Error(`--limit must be a whole number ≥ 1, not "${values.limit}".`);
  const parts = values.parts.split(',').map((p) => p.trim());
  const modes = values.modes.split(',').map((m) => m.trim()) as Mode[];
  for (const m of modes) if (m !== 'free' && m !== 'constrained') throw new Error(`unknown mode "${m}"`);
  const modelDir = path.resolve(values['model-dir'] ?? defaultModelDir());
  const variant = values.variant as 'fp32' | 'q8' | 'q4';

  // Shorter budgets than Prove's defaults (PROVE_DEFAULTS): this measures format and readable
  // scores, not accuracy, and keeps the run to minutes; the results file records them under `math`.
  // finalAnswerBox: constrained answers to problems with a reference end with a boxed final answer.
  const math = { maxTokens: 384, selfEvalMaxTokens: 128, verifierMaxTokens: 128, finalAnswerBox: true };
  // lineOpening: the bracket after the function name is the model's own token (token healing,
  // assertionLines.ts); files measured before it lack the field, so their items are not reused.
  const tests = { maxTests: 5, maxTokensPerLine: 96, freeMaxTokens: 384, lineOpening: 'model-token' };
  const practice = { questions: Number(values.questions), judgePasses: Number(values['judge-passes']) };
  const model = await createModelBackend({ backend: 'onnx', modelDir, variant, device: 'auto' });
  const support = await planSupportOf(model);
  // Items are reused only when measured the same way; the limit is not part of it, so a run with
  // a larger --limit continues a smaller one.
  const config = {
    model: model.info.name,
    modelDir: portablePath(modelDir),
    variant,
    planSupport: support.mode,
    math,
    tests,
    practice,
  };
  const results = Results.open(path.resolve(values.out), config, benchMachine());
  process.stderr.write(
    `structured: ${model.info.name} (${variant}), plans: ${support.mode === 'none' ? `none — ${support.reason}` : support.mode}\n`,
  );
  try {
    if (parts.includes('math'))
      await runMath(loadMath(values.math, limit ?? 50), model, modes, math, results);
    if (parts.includes('humaneval'))
      await runHumanEval(loadHumanEval(values.humaneval, limit ?? 164), model, modes, tests, results);
    if (parts.includes('practice')) await runPractice(model, modes, practice, results);
  } finally {
    // Both modes, over every item in the file: a run of one mode must not drop the other's figures.
    const summary: Record<string, unknown> = { planSupport: support };
    for (const mode of ['free', 'constrained'] as const) {
      summary[mode] = {
        math: summariseMath(results, mode),
        humaneval: summariseHumanEval(results, mode),
        practice: summarisePractice(results, mode),
      };
    }
    results.setSummary(summary);
    await model.dispose();
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  }
}

main().catch((err: Error & { hint?: string }) => {
  process.stderr.write(`bench/structured: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`);
  process.exitCode = 1;
});
