import type { ProveRun } from '../prove/runSchema';
import { lastBoxedAnswer } from './answers';
import { solutionIdOf } from '../steps/document';

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
  /** How likely it is wrong: 1 − verifier score, or 1 when its final answer disagrees with the known one. */
  wrong: number;
  /** convincing · wrong: the design's "convincing wrong answer" comes first. */
  priority: number;
  why: string;
}

/**
 * The solutions most worth labelling next, from saved Prove runs: convincing wrong answers —
 * solutions the current step scorer rates highly but that are probably wrong (a low verifier score,
 * or a final answer that disagrees with the known answer) — as the active-learning strategy of
 * "Let's Verify Step by Step" prescribes. Already labelled solutions are left out.
 */
export function nextToLabel(
  runs: { run: ProveRun; file?: string; knownAnswer?: string }[],
  labelledSolutionIds: Set<string>,
): QueueItem[] {
  const items: QueueItem[] = [];
  const seen = new Set<string>();
  for (const { run, file, knownAnswer } of runs) {
    for (const it of run.iterations) {
      for (const c of it.candidates) {
        const proof = c.parsed.proof;
        if (!proof.trim()) continue;
        const solutionId = solutionIdOf(proof);
        if (labelledSolutionIds.has(solutionId) || seen.has(solutionId)) continue;
        seen.add(solutionId);
        const convincing = c.stepScores?.solutionScore ?? c.parsed.selfScore ?? 0.5;
        const answer = lastBoxedAnswer(proof);
        const disagrees = knownAnswer !== undefined && answer !== null && normalise(answer) !== normalise(knownAnswer);
        const verifier = c.verifier?.score ?? null;
        const wrong = disagrees ? 1 : verifier !== null ? 1 - verifier : 0.5;
        const why = disagrees
          ? `final answer ${answer} disagrees with the known answer ${knownAnswer}`
          : verifier !== null
            ? `verifier score ${verifier.toFixed(2)}`
            : 'not verified';
        items.push({ runId: run.id, runFile: file, iteration: it.index, candidate: c.index, problem: run.problem.text, proof, solutionId, convincing, wrong, priority: convincing * wrong, why: `step score ${convincing.toFixed(2)}, ${why}` });
      }
    }
  }
  return items.sort((a, b) => b.priority - a.priority || b.convincing - a.convincing);
}

function normalise(answer: string): string {
  return answer.replace(/\s+/g, '').replace(/^\\text\{(.*)\}$/, '$1').replace(/\\left|\\right/g, '').toLowerCase();
}
