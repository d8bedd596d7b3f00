import * as path from 'node:path';
import { z } from 'zod';
import { lastBoxedAnswer } from './answers';
import { answersEquivalent } from '../math/answers';
import { solutionIdOf } from '../steps/document';
import { isDataRun } from '../runs/dataRun';

/**
 * Saved Prove runs read loosely. The run document is owned by the Prove feature and may grow or
 * change; the queue needs only a few fields, so every field is optional, unknown fields pass
 * through, and a field of the wrong type is treated as missing (`.catch`) instead of dropping the
 * whole run. Both the full run document (`iterations[].candidates[].parsed.proof`, step scores as
 * `{steps:[{score}], solutionScore}`, `verifier.score`) and a flat shape (`candidates[]` or
 * `iterations[]` of `{proof, stepScores: number[], verifierScore, finalAnswer}`) are understood.
 */
const score = z.number().min(0).max(1);
const loose = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const CandidateSchema = z.looseObject({
  index: loose(z.int().min(0)),
  proof: loose(z.string()),
  parsed: loose(z.looseObject({ proof: loose(z.string()), selfScore: loose(score.nullable()) })),
  selfScore: loose(score.nullable()),
  stepScores: loose(
    z
      .union([
        z.array(score),
        z.looseObject({
          steps: loose(z.array(z.looseObject({ score }))),
          solutionScore: loose(score.nullable()),
        }),
      ])
      .nullable(),
  ),
  verifierScore: loose(score.nullable()),
  verifier: loose(z.looseObject({ score: loose(score.nullable()) }).nullable()),
  finalAnswer: loose(z.union([z.string(), z.number()]).nullable()),
});
type Candidate = z.infer<typeof CandidateSchema>;

const IterationSchema = CandidateSchema.extend({ candidates: loose(z.array(z.unknown())) });

export const QueueRunSchema = z.looseObject({
  id: loose(z.string()),
  kind: loose(z.string()),
  status: loose(z.string()),
  problem: loose(z.union([z.string(), z.looseObject({ text: z.string() })])),
  problemId: loose(z.string()),
  knownAnswer: loose(z.union([z.string(), z.number()]).nullable()),
  iterations: loose(z.array(z.unknown())),
  candidates: loose(z.array(z.unknown())),
});

export interface QueueItem {
  runId: string;
  runFile?: string;
  iteration: number;
  candidate: number;
  problem: string;
  proof: string;
  solutionId: string;
  /** How convincing the solution looks: its step-score solution score (PRM or verifier), else the self-score. */
  convincing: number;
  /** How likely it is wrong: 1 when its final answer disagrees with the known one, 0 when it agrees, else 1 − verifier score. */
  wrong: number;
  /** convincing · wrong: the design's "convincing wrong answer" comes first. */
  priority: number;
  why: string;
}

/** The candidates of a run with where they stand: `iterations[i].candidates[j]`, or flat lists. */
function candidatesOf(
  run: z.infer<typeof QueueRunSchema>,
): { iteration: number; candidate: number; c: Candidate }[] {
  const out: { iteration: number; candidate: number; c: Candidate }[] = [];
  const push = (iteration: number, items: unknown[]) =>
    items.forEach((raw, j) => {
      const parsed = CandidateSchema.safeParse(raw);
      if (parsed.success) out.push({ iteration, candidate: parsed.data.index ?? j, c: parsed.data });
    });
  (run.iterations ?? []).forEach((raw, i) => {
    const it = IterationSchema.safeParse(raw);
    if (!it.success) return;
    // An iteration either holds candidates or is itself one (the flat shape).
    if (it.data.candidates) push(it.data.index ?? i, it.data.candidates);
    else push(i, [raw]);
  });
  if (run.candidates) push(0, run.candidates);
  return out;
}

/** How convincing the scorer found the solution: the solution score, else its weakest step. */
function convincingOf(c: Candidate): { value: number; source: string } {
  const s = c.stepScores;
  if (Array.isArray(s)) {
    if (s.length) return { value: Math.min(...s), source: 'weakest step score' };
  } else if (s) {
    if (typeof s.solutionScore === 'number') return { value: s.solutionScore, source: 'step score' };
    if (s.steps?.length)
      return { value: Math.min(...s.steps.map((x) => x.score)), source: 'weakest step score' };
  }
  const self = c.parsed?.selfScore ?? c.selfScore;
  if (typeof self === 'number') return { value: self, source: 'self-score' };
  return { value: 0.5, source: 'no score' };
}

/** The final answer of a proof: `\boxed{…}`, else the text under a closing `# Answer` line (PRM800K's style). */
export function finalAnswerOf(proof: string): string | null {
  const boxed = lastBoxedAnswer(proof);
  if (boxed !== null) return boxed;
  const m = /(?:^|\n)#+\s*Answer\s*:?\s*\n+([^\n]+)\s*$/i.exec(proof.trimEnd());
  return m ? m[1].trim() : null;
}

/**
 * The solutions most worth labelling next, from saved Prove runs: convincing wrong answers —
 * solutions the current step scorer rates highly but that are probably wrong (a final answer
 * that disagrees with the known answer, or a low verifier score) — as the active-learning
 * strategy of "Let's Verify Step by Step" prescribes. Already labelled solutions are left out,
 * and each solution appears once however many runs produced it. Runs that do not look like runs
 * contribute nothing; this function never throws on their content.
 */
export function nextToLabel(
  runs: { run: unknown; file?: string; knownAnswer?: string }[],
  labelledSolutionIds: Set<string>,
): QueueItem[] {
  const items: QueueItem[] = [];
  const seen = new Set<string>();
  for (const { run: rawRun, file, knownAnswer: given } of runs) {
    const parsedRun = QueueRunSchema.safeParse(rawRun);
    if (!parsedRun.success) continue;
    const run = parsedRun.data;
    // Cancelled runs are no labelling data; a checked proof is labelled in its own document.
    if (!isDataRun(run) || run.kind === 'check') continue;
    const problem = typeof run.problem === 'string' ? run.problem : (run.problem?.text ?? '');
    const known =
      given ??
      (run.knownAnswer === null || run.knownAnswer === undefined ? undefined : String(run.knownAnswer));
    const runId = run.id ?? (file ? path.basename(file, '.json') : (run.problemId ?? 'run'));
    for (const { iteration, candidate, c } of candidatesOf(run)) {
      const proof = c.parsed?.proof ?? c.proof ?? '';
      if (!proof.trim()) continue;
      const solutionId = solutionIdOf(proof);
      if (labelledSolutionIds.has(solutionId) || seen.has(solutionId)) continue;
      seen.add(solutionId);
      const convincing = convincingOf(c);
      const answer =
        c.finalAnswer === null || c.finalAnswer === undefined ? finalAnswerOf(proof) : String(c.finalAnswer);
      const verifier = c.verifier?.score ?? c.verifierScore ?? null;
      let wrong: number;
      let why: string;
      if (known !== undefined && answer !== null) {
        const agrees = answersEquivalent(answer, known);
        wrong = agrees ? 0 : 1;
        why = agrees
          ? `final answer ${answer} matches the known answer`
          : `final answer ${answer} disagrees with the known answer ${known}`;
      } else if (verifier !== null) {
        wrong = 1 - verifier;
        why = `verifier score ${verifier.toFixed(2)}`;
      } else {
        wrong = 0.5;
        why = 'not verified';
      }
      items.push({
        runId,
        runFile: file,
        iteration,
        candidate,
        problem,
        proof,
        solutionId,
        convincing: convincing.value,
        wrong,
        priority: convincing.value * wrong,
        why: `${convincing.source} ${convincing.value.toFixed(2)}, ${why}`,
      });
    }
  }
  return items.sort((a, b) => b.priority - a.priority || b.convincing - a.convincing);
}
