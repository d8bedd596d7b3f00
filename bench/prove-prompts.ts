/**
 * Benchmark of Prove's generator prompt: how often the embedded model's answer is right, per
 * sample, under two or more generator prompts on the same MATH problems, same seeds, same plan
 * (Prove's constrained generator plan with its boxed final answer). No verifier runs: this is the
 * cheap figure for a prompt change; `stepwise eval prove --prompts-dir DIR` is the full one.
 *
 * Prompts run interleaved, problem by problem, so a stopped run still compares like with like.
 * Every sample is appended to a journal (`--journal`, JSON lines) and a rerun with the same
 * journal skips what it holds, then writes the summary: per prompt, samples right, problems with
 * at least one right sample, proofs cut at the token limit; per prompt after the first, the paired
 * difference in per-problem accuracy with a bootstrap interval over problems.
 *
 *   npm run bench:prove-prompts -- [--data MATH-500.jsonl] [--levels 1,2,3] [--limit 25]
 *     [--samples 4] [--temperature 0.7] [--max-tokens 512] [--journal F] [--out F] BASE.md NEW.md…
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { answersEquivalent, finalBoxedAnswer } from '../src/core/math/answers';
import { readMathProblems, type MathProblem } from '../src/core/eval/datasets';
import { mean, mulberry32, percentileInterval } from '../src/core/math/stats';
import { DEFAULT_VARIANT, defaultModelDir } from '../src/core/model/defaults';
import { OnnxEngine } from '../src/core/model/onnx/engine';
import { answerFromPlan, generatorPlan } from '../src/core/prove/generate';
import { OPENING_SENTENCE, parseProofOutput } from '../src/core/prove/parse';
import { CLOSING_SENTENCE } from '../src/core/prove/score';
import { parsePromptFile, renderPrompt, type PromptTemplate } from '../src/core/prove/prompts';
import { findPackageRoot } from '../src/core/resources';
import { PROVE_DEFAULTS } from '../src/core/prove/runSchema';
import { benchMachine, portablePath } from './machine';

const SELF_EVAL_TOKENS = 128;
const SEED = 1;

interface Sample {
  prompt: string;
  id: string;
  level: number | null;
  reference: string;
  answer: string;
  correct: boolean;
  /** The Solution ran into the token limit, so the plan forced its final answer line. */
  cut: boolean;
  text: string;
}

/** A prompt's label in the journal: its file name and content digest, so a moved copy still matches. */
function labelOf(file: string, body: string): string {
  return `${path.basename(file)}@${createHash('sha256').update(body).digest('hex').slice(0, 12)}`;
}

/**
 * The journal's samples, `perProblem` at most for each prompt and problem: two runs started on
 * the same journal can both append a problem's samples, and counting both would weigh it twice.
 */
function readJournal(file: string, perProblem: number): Sample[] {
  if (!fs.existsSync(file)) return [];
  const seen = new Map<string, number>();
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Sample)
    .filter((s) => {
      const key = `${s.prompt}\u0000${s.id}`;
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      return count <= perProblem;
    });
}

/** Mean over problems of (new − base) per-problem accuracy, with a 95 % bootstrap interval. */
function pairedDifference(base: Map<string, number>, other: Map<string, number>, ids: string[]) {
  const diffs = ids.map((id) => (other.get(id) ?? 0) - (base.get(id) ?? 0));
  const random = mulberry32(7);
  const means: number[] = [];
  for (let r = 0; r < 2000; r++) {
    let sum = 0;
    for (let i = 0; i < diffs.length; i++) sum += diffs[Math.floor(random() * diffs.length)];
    means.push(sum / diffs.length);
  }
  return { mean: mean(diffs), ...percentileInterval(means), problems: ids.length };
}

const COPY_WORDS = 8;
const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);

/**
 * Whether an answer repeats a run of eight words of the prompt's own text (its instructions or
 * worked example, not the problem): a small model that copies its example's proof or grading
 * writes answers and self-evaluations about another problem. The sentences the plan itself writes
 * are left out.
 */
function copiesPrompt(text: string, template: PromptTemplate): boolean {
  const own = [OPENING_SENTENCE, CLOSING_SENTENCE, 'Final answer:'].reduce(
    (t, s) => t.split(s).join(' '),
    text,
  );
  const body = words(template.body.replace(/\{\{\s*problem\s*\}\}/g, ' '));
  const runs = new Set<string>();
  for (let i = 0; i + COPY_WORDS <= body.length; i++) runs.add(body.slice(i, i + COPY_WORDS).join(' '));
  const w = words(own);
  for (let i = 0; i + COPY_WORDS <= w.length; i++)
    if (runs.has(w.slice(i, i + COPY_WORDS).join(' '))) return true;
  return false;
}

const round = (x: number | null) => (x === null ? null : Number(x.toFixed(4)));

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      data: {
        type: 'string',
        default: path.join(findPackageRoot(), '..', 'shared', 'data', 'MATH-500.jsonl'),
      },
      levels: { type: 'string', default: '1,2,3' },
      limit: { type: 'string', default: '25' },
      samples: { type: 'string', default: '4' },
      temperature: { type: 'string', default: String(PROVE_DEFAULTS.temperature) },
      'max-tokens': { type: 'string', default: String(PROVE_DEFAULTS.maxTokens) },
      journal: { type: 'string', default: 'bench/results/prove-prompts.samples.jsonl' },
      out: { type: 'string', default: 'bench/results/prove-prompts.json' },
    },
  });
  if (positionals.length < 2)
    throw new Error('Name at least two generator prompt files: the baseline first.');
  if (!fs.existsSync(values.data))
    throw new Error(`${values.data} is missing: pass --data with a MATH-style JSONL file (MATH-500).`);
  const templates: { label: string; file: string; template: PromptTemplate }[] = positionals.map((file) => {
    const text = fs.readFileSync(file, 'utf8');
    return { file, label: labelOf(file, text), template: parsePromptFile('generator', file, text) };
  });
  const levels = new Set(values.levels.split(',').map(Number));
  const problems: MathProblem[] = readMathProblems(values.data)
    .items.filter((p) => levels.has(p.level ?? 0))
    .slice(0, Number(values.limit));
  const samples = Number(values.samples);
  const maxTokens = Number(values['max-tokens']);
  const temperature = Number(values.temperature);

  const journal = readJournal(values.journal, samples);
  const done = new Set(journal.map((s) => `${s.prompt}\u0000${s.id}`));
  const plan = generatorPlan(maxTokens, SELF_EVAL_TOKENS, true);
  let engine: OnnxEngine | undefined;
  const started = Date.now();
  try {
    for (const problem of problems) {
      for (const { label, template } of templates) {
        if (done.has(`${label}\u0000${problem.id}`)) continue;
        engine ??= await OnnxEngine.load({
          modelDir: defaultModelDir(),
          variant: DEFAULT_VARIANT,
          device: 'cpu',
          threads: os.cpus().length,
        });
        const input = [
          { role: 'user' as const, content: renderPrompt(template, { problem: problem.problem }) },
        ];
        const result = await engine.generatePlan(input, plan, { n: samples, temperature, seed: SEED });
        const rows: Sample[] = result.completions.map((c) => {
          const answer = finalBoxedAnswer(parseProofOutput(answerFromPlan(c).text).proof) ?? '';
          return {
            prompt: label,
            id: problem.id,
            level: problem.level ?? null,
            reference: problem.answer,
            answer,
            correct: answersEquivalent(answer, problem.answer),
            cut: c.segments.find((s) => s.name === 'proof')?.finishReason === 'length',
            text: c.text,
          };
        });
        fs.appendFileSync(values.journal, rows.map((r) => JSON.stringify(r) + '\n').join(''));
        journal.push(...rows);
        const right = rows.filter((r) => r.correct).length;
        process.stderr.write(
          `${problem.id} ${label}: ${right}/${rows.length} right (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
        );
      }
    }
  } finally {
    await engine?.dispose();
  }

  const ids = problems.map((p) => p.id);
  const perProblem = (label: string) => {
    const acc = new Map<string, number>();
    for (const id of ids) {
      const rows = journal.filter((s) => s.prompt === label && s.id === id);
      if (rows.length) acc.set(id, rows.filter((r) => r.correct).length / rows.length);
    }
    return acc;
  };
  const base = perProblem(templates[0].label);
  const prompts = templates.map(({ label, file, template }, i) => {
    const rows = journal.filter((s) => s.prompt === label && ids.includes(s.id));
    const acc = perProblem(label);
    return {
      label,
      file,
      samples: rows.length,
      correct: rows.filter((r) => r.correct).length,
      accuracy: round(rows.filter((r) => r.correct).length / Math.max(1, rows.length)),
      problemsWithARightSample: [...acc.values()].filter((a) => a > 0).length,
      cutAtTokenLimit: rows.filter((r) => r.cut).length,
      copiesPromptText: rows.filter((r) => copiesPrompt(r.text, template)).length,
      ...(i > 0
        ? {
            differenceFromBaseline: pairedDifference(
              base,
              acc,
              ids.filter((id) => acc.has(id) && base.has(id)),
            ),
          }
        : {}),
    };
  });
  const result = {
    benchmark: 'prove-prompts',
    description:
      "Per-sample final-answer accuracy of Prove's constrained generator plan under each generator prompt: same problems, same seed, prompts interleaved; no verifier. copiesPromptText: answers that repeat eight words in a row of the prompt's own text (instructions or example, not the problem). differenceFromBaseline: mean over problems of the per-problem accuracy difference, 95 % bootstrap interval over problems.",
    command: `npm run bench:prove-prompts -- ${process.argv.slice(2).join(' ')}`,
    date: new Date().toISOString(),
    machine: benchMachine(),
    model: { dir: portablePath(defaultModelDir()), variant: DEFAULT_VARIANT },
    settings: {
      levels: [...levels],
      problems: problems.length,
      samples,
      temperature,
      maxTokens,
      selfEvalMaxTokens: SELF_EVAL_TOKENS,
      seed: SEED,
    },
    prompts,
  };
  fs.writeFileSync(values.out, JSON.stringify(result, null, 2) + '\n');
  process.stderr.write(JSON.stringify(prompts, null, 1) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
});
